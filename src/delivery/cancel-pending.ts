import type { Client } from '@temporalio/client';
import type { Store } from '../store/index.js';
import { cancelSignal, deliveryWorkflowId } from '../../workflows/messages.js';

/**
 * A deleted subscription's pending deliveries end as `cancelled` (terminalReason `subscription_deleted`) at once;
 * each one's workflow gets the cancel signal and ends without another request. Rejects, after signalling all it
 * could, when a workflow could not be signalled (it then ends at its next attempt, which finds the delivery cancelled).
 */
export async function cancelPendingDeliveries(
  deps: { store: Store; client: Client },
  subscription: { integratorId: string; _id: string },
): Promise<number> {
  const { integratorId, _id } = subscription;
  const ids = await deps.store.deliveries.cancelPendingOf(integratorId, _id, 'subscription_deleted');
  const woken = await Promise.allSettled(
    ids.map((id) => deps.client.workflow.getHandle(deliveryWorkflowId(id)).signal(cancelSignal)),
  );
  const failed = woken.filter((r) => r.status === 'rejected');
  if (failed.length > 0) {
    throw new AggregateError(
      failed.map((r) => (r as PromiseRejectedResult).reason as unknown),
      `${failed.length} of ${ids.length} cancelled deliveries' workflows could not be signalled`,
    );
  }
  return ids.length;
}
