import type { Client } from '@temporalio/client';
import type { Store } from '../store/index.js';
import { deliveryWorkflowId, retryNowSignal } from '../../workflows/messages.js';

/**
 * A deleted subscription's pending deliveries end as `cancelled` (terminalReason `subscription_deleted`) at once;
 * each waiting workflow is woken so that its next attempt finds the delivery cancelled, makes no request and ends.
 */
export async function cancelPendingDeliveries(
  deps: { store: Store; client: Client },
  subscriptionId: string,
): Promise<number> {
  const ids = await deps.store.deliveries.cancelPendingOf(subscriptionId, 'subscription_deleted');
  await Promise.allSettled(
    ids.map((id) => deps.client.workflow.getHandle(deliveryWorkflowId(id)).signal(retryNowSignal)),
  );
  return ids.length;
}
