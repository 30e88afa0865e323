import type { Db } from 'mongodb';
import { coalescedFindById } from './by-ids.js';
import type { SubscriptionDoc, SubscriptionIndexDoc, SubscriptionIndexEntry } from './documents.js';

const entryOf = (s: SubscriptionDoc): SubscriptionIndexEntry => ({
  eventTypes: s.eventTypes,
  status: s.status,
  createdAt: s.createdAt,
  version: s.version ?? 0,
  ...(s.ordering === 'fifo' ? { ordering: 'fifo' as const } : {}),
});

/**
 * The per-integrator index of live subscriptions that ingestion matches events against with one read by `_id` (the
 * MongoDB-wire server evaluates any other filter over the whole collection). The subscriptions repository writes it
 * after each change of a subscription; a subscription whose change was not indexed (a crash in between) is matched
 * as it was until its next change.
 */
export function createSubscriptionIndex(db: Db) {
  const index = db.collection<SubscriptionIndexDoc>('subscription_index');
  const subscriptions = db.collection<SubscriptionDoc>('subscriptions');

  /** Builds an integrator's index from the subscriptions themselves: once, for subscriptions older than the index. */
  async function rebuild(integratorId: string): Promise<Record<string, SubscriptionIndexEntry>> {
    const live = await subscriptions.find({ integratorId, deletedAt: null }).toArray();
    const entries = Object.fromEntries(live.map((s) => [s._id, entryOf(s)]));
    const fields = Object.fromEntries(live.map((s) => [`entries.${s._id}`, entryOf(s)]));
    await index.updateOne(
      { _id: integratorId },
      live.length > 0 ? { $set: fields } : { $setOnInsert: { entries: {} } },
      { upsert: true },
    );
    return entries;
  }

  // Concurrent ingests read their integrators' index documents in one find (src/store/coalesce.ts).
  const readIndex = coalescedFindById(index);

  return {
    collection: index,

    /** The integrator's live subscriptions by id. */
    async entries(integratorId: string): Promise<Record<string, SubscriptionIndexEntry>> {
      const doc = await readIndex(integratorId);
      return doc ? (doc.entries ?? {}) : await rebuild(integratorId);
    },

    /** Writes a subscription's entry as the document now is (a deleted one leaves the index). */
    async put(s: SubscriptionDoc): Promise<void> {
      if (!(await index.findOne({ _id: s.integratorId }))) {
        await rebuild(s.integratorId);
        return;
      }
      const path = `entries.${s._id}`;
      await index.updateOne(
        { _id: s.integratorId },
        s.deletedAt ? { $unset: { [path]: '' } } : { $set: { [path]: entryOf(s) } },
      );
    },
  };
}
