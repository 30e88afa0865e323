import { WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError, type Client } from '@temporalio/client';
import { deliveryWorkflowId, releaseSignal, releaseWorkflowId } from '../../workflows/messages.js';
import { releaseWorkflow } from '../../workflows/release.js';
import { subscriptionPriority } from '../../workflows/start-options.js';

/**
 * Starts the release of a resumed subscription's held deliveries (workflows/release.ts), oldest first at
 * `ratePerSecond`. One runs at a time per subscription: a release already running goes on (its second pass, from the
 * oldest again, also finds what was held since it started).
 */
export async function startRelease(
  deps: { client: Client; taskQueue: string },
  subscriptionId: string,
  ratePerSecond: number,
): Promise<void> {
  try {
    await deps.client.workflow.start(releaseWorkflow, {
      taskQueue: deps.taskQueue,
      workflowId: releaseWorkflowId(subscriptionId),
      args: [{ subscriptionId, ratePerSecond, after: null, finalPass: false, released: 0 }],
      priority: subscriptionPriority(subscriptionId),
    });
  } catch (err) {
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
  }
}

/** The worker's release signal (activities/release-page.ts): false when the delivery's run has ended. */
export function releaseSignaller(client: Client) {
  return async (deliveryId: string): Promise<boolean> => {
    try {
      await client.workflow.getHandle(deliveryWorkflowId(deliveryId)).signal(releaseSignal);
      return true;
    } catch (err) {
      if (err instanceof WorkflowNotFoundError) return false;
      throw err;
    }
  };
}

/** The place in its ordered lane that the running run of a delivery holds (its memo); null when none runs. */
export function fifoSeqReader(client: Client) {
  return async (deliveryId: string): Promise<number | null> => {
    try {
      const run = await client.workflow.getHandle(deliveryWorkflowId(deliveryId)).describe();
      const seq = run.status.name === 'RUNNING' ? run.memo?.fifoSeq : undefined;
      return typeof seq === 'number' ? seq : null;
    } catch (err) {
      if (err instanceof WorkflowNotFoundError) return null;
      throw err;
    }
  };
}
