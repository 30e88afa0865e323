// Cancelling one delivery by `_id` on request (the cancel route, each of a deleted subscription's on the `pages`
// layout). A subscription's pending ones are found and cancelled by the listing (src/store/listing), by layout.
import type { Collection } from 'mongodb';
import type { TerminalReason } from '../domain/delivery-vocabulary.js';
import type { DeliveryDoc } from './documents.js';

/** What a cancellation sets. */
export const cancelledAt = (terminalReason: TerminalReason, now: Date) =>
  ({ status: 'cancelled', terminalReason, nextAttemptAt: null, updatedAt: now }) as const;

export type CancelOne = (_id: string, terminalReason: TerminalReason, now: Date) => Promise<DeliveryDoc | null>;

/**
 * Ends a delivery as cancelled in one write by `_id` and returns it as it was before (null: no such delivery).
 * Only a pending one is cancelled: one that ended meanwhile gets its ending put back (the rare lost race costs a
 * second write); one newly cancelled is filed under `cancelled` (`fileCancelled`: the listing's filing).
 */
export function createCancelOne(
  deliveries: Collection<DeliveryDoc>,
  fileCancelled: (before: DeliveryDoc) => Promise<void>,
): CancelOne {
  return async function cancelOne(_id, terminalReason, now) {
    const before = await deliveries.findOneAndUpdate(
      { _id },
      { $set: cancelledAt(terminalReason, now) },
      { returnDocument: 'before' },
    );
    if (!before || before.status === 'pending') {
      if (before) await fileCancelled(before);
      return before;
    }
    const { status, terminalReason: reason, nextAttemptAt, updatedAt } = before;
    await deliveries.updateOne({ _id }, { $set: { status, terminalReason: reason, nextAttemptAt, updatedAt } });
    return before;
  };
}
