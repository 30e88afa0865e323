import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import { WorkflowIdReusePolicy } from '@temporalio/common';
import type { DeliveryDoc } from '../store/documents.js';
import { deliveryWorkflow } from '../../workflows/delivery.js';
import { deliveryWorkflowId } from '../../workflows/messages.js';
import { initialSearchAttributes } from '../../workflows/start-options.js';
import type { DeliveryWorkflowInput } from '../../workflows/types.js';

/** Options of a new delivery's workflow: the delivery id as workflow id, never run twice. */
export function deliveryStartOptions(
  delivery: Pick<DeliveryDoc, '_id' | 'subscriptionId' | 'eventType' | 'integratorId' | 'attemptCount'>,
  taskQueue: string,
  input: DeliveryWorkflowInput,
) {
  return {
    taskQueue,
    workflowId: deliveryWorkflowId(delivery._id),
    args: [input] as [DeliveryWorkflowInput],
    typedSearchAttributes: initialSearchAttributes({
      subscriptionId: delivery.subscriptionId,
      eventType: delivery.eventType,
      integratorId: delivery.integratorId,
      attemptCount: delivery.attemptCount,
    }),
  };
}

/**
 * Starts the workflow of a new delivery. Idempotent: a workflow with this id that runs or has ever run (a repeated
 * hand-off, a sweeper racing the API) is left as it is.
 */
export async function startDeliveryWorkflow(client: Client, taskQueue: string, delivery: DeliveryDoc): Promise<void> {
  try {
    await client.workflow.start(deliveryWorkflow, {
      ...deliveryStartOptions(delivery, taskQueue, {
        deliveryId: delivery._id,
        firstAttemptNumber: 1,
        actor: 'system',
        followSchedule: true,
      }),
      workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
    });
  } catch (err) {
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
  }
}
