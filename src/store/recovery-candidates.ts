// The reads behind recovery campaigns and the per-subscription summary. Off the hot path: on the MongoDB-wire server
// every one of these filters is evaluated over the whole deliveries collection (one scan per call); real MongoDB
// serves them from the `subscription_status_oldest` index (src/store/indexes.ts).
import type { Collection, Filter } from 'mongodb';
import { deliveryStatuses, type DeliveryStatus } from '../domain/delivery-vocabulary.js';
import type { DeliveryDoc } from './documents.js';

/** Which deliveries a campaign re-delivers: a subscription's, of these statuses, created in [since, until). */
export interface RecoveryWindow {
  readonly subscriptionId: string;
  /** ISO date-times (workflow inputs carry no Date). */
  readonly since: string;
  readonly until: string;
  readonly statuses: readonly DeliveryStatus[];
}

/** Where a page of candidates ends, oldest first: (createdAt, _id). */
export interface CandidatePosition {
  readonly createdAt: string;
  readonly id: string;
}

/** A delivery to re-deliver, with the attempt count it had when it was listed. */
export interface Candidate {
  readonly id: string;
  readonly attemptCount: number;
  readonly createdAt: string;
}

const windowFilter = (w: RecoveryWindow): Filter<DeliveryDoc> => ({
  subscriptionId: w.subscriptionId,
  status: { $in: [...w.statuses] },
  createdAt: { $gte: new Date(w.since), $lt: new Date(w.until) },
});

export async function countCandidates(deliveries: Collection<DeliveryDoc>, w: RecoveryWindow): Promise<number> {
  return await deliveries.countDocuments(windowFilter(w));
}

/** One page of candidates, oldest first, strictly after `position`; `next` is null on the last page. */
export async function candidatePage(
  deliveries: Collection<DeliveryDoc>,
  w: RecoveryWindow,
  position: CandidatePosition | null,
  limit: number,
): Promise<{ items: Candidate[]; next: CandidatePosition | null }> {
  const at = position && new Date(position.createdAt);
  const filter: Filter<DeliveryDoc> = at
    ? { $and: [windowFilter(w), { $or: [{ createdAt: { $gt: at } }, { createdAt: at, _id: { $gt: position.id } }] }] }
    : windowFilter(w);
  const rows = await deliveries
    .find(filter, { projection: { _id: 1, attemptCount: 1, createdAt: 1 } })
    .sort({ createdAt: 1, _id: 1 })
    .limit(limit + 1)
    .toArray();
  const items = rows.slice(0, limit).map((d) => ({
    id: d._id,
    attemptCount: d.attemptCount,
    createdAt: d.createdAt.toISOString(),
  }));
  const last = items.at(-1);
  return { items, next: rows.length > limit && last ? { createdAt: last.createdAt, id: last.id } : null };
}

export interface DeliverySummary {
  counts: Record<DeliveryStatus, number>;
  oldestPending: DeliveryDoc | null;
}

/**
 * A subscription's deliveries counted by status, each count stopping at `limit` (so a read touches at most `limit`
 * index keys per status, however many deliveries the subscription has), and its oldest pending one.
 */
export async function summarise(
  deliveries: Collection<DeliveryDoc>,
  subscriptionId: string,
  limit: number,
): Promise<DeliverySummary> {
  const count = async (status: DeliveryStatus) =>
    await deliveries.countDocuments({ subscriptionId, status }, { limit });
  const counted = await Promise.all(deliveryStatuses.map(async (status) => [status, await count(status)] as const));
  const counts = Object.fromEntries(counted) as Record<DeliveryStatus, number>;
  const [oldestPending = null] =
    counts.pending === 0
      ? []
      : await deliveries
          .find({ subscriptionId, status: 'pending' }, { projection: { attempts: 0 } })
          .sort({ createdAt: 1, _id: 1 })
          .limit(1)
          .toArray();
  return { counts, oldestPending };
}
