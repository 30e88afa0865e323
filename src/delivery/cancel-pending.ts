import type { Client } from '@temporalio/client';
import type { Store } from '../store/index.js';
import { deliveryWorkflowId, retryNowSignal } from '../../workflows/messages.js';

/**
 * A deleted subscription's pending deliveries end as `cancelled` (terminalReason `subscription_deleted`) at once;
 * each waiting workflow is woken so that its next attempt finds the delivery cancelled, makes no request and ends.
 * Rejects, after signalling all it could, when a workflow could not be woken (it then ends at its next attempt).
 */
export async function cancelPendingDeliveries(
  deps: { store: Store; client: Client },
  subscriptionId: string,
): Promise<number> {
  const ids = await deps.store.deliveries.cancelPendingOf(subscriptionId, 'subscription_deleted');
  const woken = await Promise.allSettled(
    ids.map((id) => deps.client.workflow.getHandle(deliveryWorkflowId(id)).signal(retryNowSignal)),
  );
  const failed = woken.filter((r) => r.status === 'rejected');
  if (failed.length > 0) {
    throw new AggregateError(
      failed.map((r) => (r as PromiseRejectedResult).reason as unknown),
      `${failed.length} of ${ids.length} cancelled deliveries' workflows could not be woken`,
    );
  }
  return ids.length;
}
