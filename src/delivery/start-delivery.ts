import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import { WorkflowIdReusePolicy } from '@temporalio/common';
import { deliveryWorkflow } from '../../workflows/delivery.js';
import { deliveryWorkflowId } from '../../workflows/messages.js';
import { initialSearchAttributes, subscriptionPriority } from '../../workflows/start-options.js';
import type { DeliveryWorkflowInput, HandOff } from '../../workflows/types.js';

/** The run's memo: its event (the worker's log lines), and its place in an ordered lane (read by a turn's recheck). */
const memoOf = (eventId: string, fifoSeq: number | undefined) => ({
  eventId,
  ...(fifoSeq === undefined ? {} : { fifoSeq }),
});

/**
 * Options of a new delivery's workflow: the delivery id as workflow id, never run twice; the event id in the memo,
 * for the worker's log lines about the run (src/telemetry/temporal-logger.ts); its subscription's fairness key.
 */
export function deliveryStartOptions(
  delivery: {
    _id: string;
    eventId?: string;
    subscriptionId: string;
    eventType: string;
    integratorId: string;
    attemptCount: number;
  },
  taskQueue: string,
  input: DeliveryWorkflowInput,
) {
  return {
    taskQueue,
    workflowId: deliveryWorkflowId(delivery._id),
    args: [input] as [DeliveryWorkflowInput],
    ...(delivery.eventId === undefined ? {} : { memo: memoOf(delivery.eventId, input.handOff?.fifoSeq) }),
    priority: subscriptionPriority(delivery.subscriptionId),
    typedSearchAttributes: initialSearchAttributes({
      subscriptionId: delivery.subscriptionId,
      eventType: delivery.eventType,
      integratorId: delivery.integratorId,
      attemptCount: delivery.attemptCount,
    }),
  };
}

/**
 * Starts the workflow of a handed-off delivery; answers whether this call started it. Idempotent: a workflow with this id that runs or has run to an end
 * (a repeated hand-off, a re-submitted event) is left as it is; one that failed (its event was never stored, see
 * activities/attempt-delivery.ts) may run again, for the re-submission that stores the event at last.
 * `eager`: ask for eager start (the client shares its NativeConnection with a worker of the task queue, see
 * src/temporal/api-worker.ts); the SDK sends a normal start when that worker has no free workflow-task slot.
 */
export async function startDeliveryWorkflow(
  client: Client,
  taskQueue: string,
  handOff: HandOff & { deliveryId: string },
  options: { eager?: boolean } = {},
): Promise<boolean> {
  const { deliveryId, ...rest } = handOff;
  const delivery = { _id: deliveryId, attemptCount: 0, ...rest };
  try {
    await client.workflow.start(deliveryWorkflow, {
      ...deliveryStartOptions(delivery, taskQueue, {
        deliveryId,
        firstAttemptNumber: 1,
        actor: 'system',
        followSchedule: true,
        handOff: rest,
      }),
      workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE_FAILED_ONLY,
      ...(options.eager ? { requestEagerStart: true } : {}),
    });
    return true;
  } catch (err) {
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
    return false;
  }
}
