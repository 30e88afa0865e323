import type { Collection, Document, Filter } from 'mongodb';
import { after, newestFirst, type Position } from '../cursor.js';
import {
  isMaxTimeExpired,
  ListingTimeout,
  scanBudget,
  stoppedAt,
  type BoundedRows,
  type ListingBounds,
} from './scan-budget.js';

/** The most index entries one round reads. */
const MAX_ROUND = 1_000;

/**
 * A listing page on the `indexes` layout, read in rounds: each round asks `anchor` (an equality and the createdAt
 * range, which one declared index answers in newest-first order) for the next rows after the last one read, and keeps
 * those `keep` passes (the filters no index of the query covers). So each round examines exactly the rows it returns,
 * and the page stops once `limit` rows passed, the history ends, or the page's budget (rows read, time; every query
 * under `maxTimeMS`) is spent: then it answers what it found with `resumeAt`, after the last row read. A first query
 * that runs out of time throws ListingTimeout.
 */
export async function readInRounds<T extends Document & { _id: string; createdAt: Date }>(
  collection: Collection<T>,
  q: {
    integratorId: string;
    anchor: Filter<T>;
    keep: ((doc: T) => boolean) | null;
    position: Position | null | undefined;
    limit: number;
    projection: Document;
    bounds: ListingBounds;
  },
): Promise<BoundedRows<T>> {
  const budget = scanBudget(q.bounds, q.integratorId);
  const out: T[] = [];
  let position = q.position ?? null;
  let batch = q.limit;
  for (;;) {
    const filter = (position ? { $and: [q.anchor, after<T>(position)] } : q.anchor) as Filter<T>;
    let docs: T[];
    try {
      docs = (await collection
        .find(filter, { projection: q.projection, sort: newestFirst, limit: batch, maxTimeMS: budget.msLeft() })
        .toArray()) as T[];
    } catch (err) {
      if (!isMaxTimeExpired(err)) throw err;
      // Only a round that read something moved `position`: with none, there is nowhere to go on from.
      if (!position || position === q.position) throw new ListingTimeout('the listing query ran out of time');
      return stoppedAt(out, position);
    }
    budget.spend(docs.length);
    for (const d of docs) {
      if (q.keep && !q.keep(d)) continue;
      out.push(d);
      if (out.length === q.limit) return out;
    }
    const last = docs.at(-1);
    if (docs.length < batch || !last) return out;
    position = { createdAt: last.createdAt, id: last._id };
    await budget.paced();
    if (budget.spent()) return stoppedAt(out, position);
    batch = Math.min(MAX_ROUND, batch * 2);
  }
}
