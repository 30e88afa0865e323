import type { Client } from '@temporalio/client';
import type { DeliveryDoc } from '../store/documents.js';
import type { Store } from '../store/index.js';
import { cancelSignal, deliveryWorkflowId } from '../../workflows/messages.js';

export type CancelVerdict = { ok: true; delivery: DeliveryDoc } | { ok: false; delivery: DeliveryDoc };

/**
 * Cancels one delivery (POST /v1/webhooks/deliveries/{id}/cancel). A pending one ends as cancelled
 * (`cancelled_by_integrator`) in one write by `_id`, and its workflow gets the cancel signal (the path a deleted
 * subscription's deliveries take): a waiting run ends at once, a running attempt's run after it, its outcome
 * recorded but the status left cancelled. A cancelled one is answered as it is; a succeeded or failed one is refused
 * (`ok: false`), and a write that lost the race to an attempt's final status puts that status back.
 */
export async function cancelDelivery(
  deps: { store: Store; client: Client },
  found: DeliveryDoc,
): Promise<CancelVerdict> {
  if (found.status === 'cancelled') return { ok: true, delivery: found };
  if (found.status !== 'pending') return { ok: false, delivery: found };
  const collection = deps.store.deliveries.collection;
  const now = new Date();
  const ended = { status: 'cancelled', terminalReason: 'cancelled_by_integrator', nextAttemptAt: null } as const;
  const before = await collection.findOneAndUpdate(
    { _id: found._id },
    { $set: { ...ended, updatedAt: now } },
    { returnDocument: 'before' },
  );
  if (!before) return { ok: false, delivery: found };
  if (before.status === 'succeeded' || before.status === 'failed') {
    const { status, terminalReason, nextAttemptAt, updatedAt } = before;
    await collection.updateOne({ _id: found._id }, { $set: { status, terminalReason, nextAttemptAt, updatedAt } });
    return { ok: false, delivery: before };
  }
  if (before.status === 'cancelled') return { ok: true, delivery: before };
  await deps.client.workflow
    .getHandle(deliveryWorkflowId(found._id))
    .signal(cancelSignal)
    .catch(() => undefined); // no run left, or Temporal unreachable: its next attempt finds the delivery cancelled
  return { ok: true, delivery: { ...before, ...ended, updatedAt: now } };
}
