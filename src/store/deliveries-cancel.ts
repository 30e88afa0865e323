// Cancelling deliveries (the deliveries repository's part that ends them on request): one by `_id` (the cancel
// route, and each of a deleted subscription's), and a subscription's pending ones.
import type { Collection } from 'mongodb';
import type { TerminalReason } from '../domain/delivery-vocabulary.js';
import type { DeliveryDoc } from './documents.js';
import { pendingCandidates, statusEntries } from './delivery-pages.js';
import type { PageCollections } from './event-pages/docs.js';
import type { Filed } from './event-pages/write.js';

export interface CancellationDeps {
  readonly deliveries: Collection<DeliveryDoc>;
  readonly pages: PageCollections;
  readonly layout: () => Promise<'pages' | 'indexes'>;
  /** Files listing rows (nothing with the `indexes` layout). */
  readonly file: (entries: Filed[]) => Promise<void>;
}

const cancelledAt = (terminalReason: TerminalReason, now: Date) =>
  ({ status: 'cancelled', terminalReason, nextAttemptAt: null, updatedAt: now }) as const;

export function createCancellation({ deliveries, pages, layout, file }: CancellationDeps) {
  /**
   * Ends a delivery as cancelled in one write by `_id` and returns it as it was before (null: no such delivery).
   * Only a pending one is cancelled: one that ended meanwhile gets its ending put back (the rare lost race costs a
   * second write); one newly cancelled is filed under `cancelled`.
   */
  async function cancelOne(_id: string, terminalReason: TerminalReason, now: Date): Promise<DeliveryDoc | null> {
    const before = await deliveries.findOneAndUpdate(
      { _id },
      { $set: cancelledAt(terminalReason, now) },
      { returnDocument: 'before' },
    );
    if (!before || before.status === 'pending') {
      if (before) await file(statusEntries(before, 'cancelled'));
      return before;
    }
    const { status, terminalReason: reason, nextAttemptAt, updatedAt } = before;
    await deliveries.updateOne({ _id }, { $set: { status, terminalReason: reason, nextAttemptAt, updatedAt } });
    return before;
  }

  return {
    cancelOne,

    /**
     * Marks a subscription's pending deliveries cancelled (terminal); returns their ids so their workflows can be
     * woken to end. An attempt already running records its own outcome but leaves a cancelled status alone. With
     * the `pages` layout the candidates are the subscription's rows filed as pending, each read and cancelled by
     * `_id` (cancelOne).
     */
    async cancelPendingOf(
      integratorId: string,
      subscriptionId: string,
      terminalReason: TerminalReason,
    ): Promise<string[]> {
      const now = new Date();
      if ((await layout()) === 'indexes') {
        const pending = await deliveries
          .find({ subscriptionId, status: 'pending' }, { projection: { _id: 1 } })
          .map((d) => d._id)
          .toArray();
        if (pending.length > 0)
          await deliveries.updateMany(
            { _id: { $in: pending }, status: 'pending' },
            { $set: cancelledAt(terminalReason, now) },
          );
        return pending;
      }
      const ids = await pendingCandidates(pages, integratorId, subscriptionId);
      const cancelled = await Promise.all(
        ids.map(async (_id) => {
          if ((await deliveries.findOne({ _id }, { projection: { status: 1 } }))?.status !== 'pending') return null;
          const before = await cancelOne(_id, terminalReason, now);
          return before?.status === 'pending' ? _id : null;
        }),
      );
      return cancelled.filter((id): id is string => id !== null);
    },
  };
}
