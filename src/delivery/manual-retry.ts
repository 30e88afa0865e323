import type { Client } from '@temporalio/client';
import type { DeliveryDoc } from '../store/documents.js';
import type { Store } from '../store/index.js';
import { deliveryWorkflowType, retryNowSignal } from '../../workflows/messages.js';
import { deliveryStartOptions } from './start-delivery.js';

export type RetryVerdict = { ok: true; delivery: DeliveryDoc } | { ok: false; reason: 'subscription_deleted' };

/**
 * Attempt now. A pending delivery's workflow is signalled (its wait is cut short). A terminal one is made pending
 * again and gets a new run of its workflow, same id, that attempts once at once and ends (no new schedule).
 * signalWithStart covers both, and also a pending delivery whose workflow never started.
 */
export async function retryDelivery(
  deps: { store: Store; client: Client; taskQueue: string },
  delivery: DeliveryDoc,
  now = new Date(),
): Promise<RetryVerdict> {
  const { store, client, taskQueue } = deps;
  const subscription = await store.subscriptions.findById(delivery.subscriptionId);
  if (!subscription || subscription.deletedAt) return { ok: false, reason: 'subscription_deleted' };
  const terminal = delivery.status !== 'pending';
  const current = (terminal ? await store.deliveries.reopen(delivery._id, now) : null) ?? delivery;
  await client.workflow.signalWithStart(deliveryWorkflowType, {
    ...deliveryStartOptions(current, taskQueue, {
      deliveryId: current._id,
      firstAttemptNumber: current.attemptCount + 1,
      actor: 'manual',
      followSchedule: !terminal,
    }),
    signal: retryNowSignal,
    signalArgs: [],
  });
  return { ok: true, delivery: (await store.deliveries.findById(current._id)) ?? current };
}
