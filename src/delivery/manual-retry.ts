import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import type { DeliveryDoc } from '../store/documents.js';
import type { Store } from '../store/index.js';
import { deliveryWorkflowType, retryNowSignal } from '../../workflows/messages.js';
import { deliveryStartOptions } from './start-delivery.js';

export type RetryVerdict = { ok: true; delivery: DeliveryDoc } | { ok: false; reason: 'subscription_deleted' };

/**
 * Attempt now. A pending delivery's workflow is signalled (its wait is cut short); signalWithStart also covers a
 * pending delivery whose workflow never started. A terminal one is made pending again and gets a new run of its
 * workflow, same id, that attempts once at once and ends (no new schedule).
 */
export async function retryDelivery(
  deps: { store: Store; client: Client; taskQueue: string },
  delivery: DeliveryDoc,
  now = new Date(),
): Promise<RetryVerdict> {
  const { store, client, taskQueue } = deps;
  const subscription = await store.subscriptions.findById(delivery.subscriptionId);
  if (!subscription || subscription.deletedAt) return { ok: false, reason: 'subscription_deleted' };
  const reopened = delivery.status === 'pending' ? null : await store.deliveries.reopen(delivery._id, now);
  const current = reopened ?? delivery;
  const options = deliveryStartOptions(current, taskQueue, {
    deliveryId: current._id,
    firstAttemptNumber: current.attemptCount + 1,
    actor: 'manual',
    followSchedule: reopened === null,
  });
  if (reopened) await startRerun(client, options);
  else
    await client.workflow.signalWithStart(deliveryWorkflowType, { ...options, signal: retryNowSignal, signalArgs: [] });
  return { ok: true, delivery: (await store.deliveries.findById(current._id)) ?? current };
}

/**
 * A new run for a terminal delivery. Its last run may still be closing (it has written the terminal status and is
 * about to complete): a signal would reach that run and be lost, so wait for it to close and start again.
 */
async function startRerun(client: Client, options: ReturnType<typeof deliveryStartOptions>): Promise<void> {
  for (let tries = 0; ; tries++) {
    try {
      await client.workflow.start(deliveryWorkflowType, { ...options, workflowIdConflictPolicy: 'FAIL' });
      return;
    } catch (err) {
      if (!(err instanceof WorkflowExecutionAlreadyStartedError) || tries >= 3) throw err;
      await client.workflow
        .getHandle(options.workflowId)
        .result()
        .catch(() => undefined);
    }
  }
}
