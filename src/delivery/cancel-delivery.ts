import type { Client } from '@temporalio/client';
import type { DeliveryDoc } from '../store/documents.js';
import type { Store } from '../store/index.js';
import { cancelSignal, deliveryWorkflowId } from '../../workflows/messages.js';
import { createFifoTurns } from '../ordering/fifo-turns.js';
import { fifoSeqReader, releaseSignaller } from './release-held.js';

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
  const now = new Date();
  const before = await deps.store.deliveries.cancelOne(found._id, 'cancelled_by_integrator', now);
  if (!before) return { ok: false, delivery: found };
  if (before.status === 'succeeded' || before.status === 'failed') return { ok: false, delivery: before };
  if (before.status === 'cancelled') return { ok: true, delivery: before };
  await deps.client.workflow
    .getHandle(deliveryWorkflowId(found._id))
    .signal(cancelSignal)
    .catch(() => undefined); // no run left, or Temporal unreachable: its next attempt finds the delivery cancelled
  // Ended while holding its ordered lane's turn (waiting for a retry, say): the next delivery goes now.
  if (before.fifoSeq !== undefined) await passTurnOf(deps, before.subscriptionId, before.fifoSeq, found._id);
  const ended = { status: 'cancelled', terminalReason: 'cancelled_by_integrator', nextAttemptAt: null } as const;
  return { ok: true, delivery: { ...before, ...ended, updatedAt: now } };
}

/** Passes the turn of a cancelled delivery's lane when it held it (a waiter of that lane would skip it in the end). */
async function passTurnOf(deps: { store: Store; client: Client }, subscriptionId: string, seq: number, id: string) {
  const lane = await deps.store.fifoLanes.lane(subscriptionId);
  if (lane?.turn !== seq) return;
  const turns = createFifoTurns({
    lanes: deps.store.fifoLanes,
    signalRelease: releaseSignaller(deps.client),
    seqOf: fifoSeqReader(deps.client),
    now: () => new Date(),
  });
  await turns.pass(subscriptionId, seq, id, false);
}
