import type { AnyBulkWriteOperation, Db } from 'mongodb';
import type { AttemptCounts } from '../domain/attempt-counts.js';
import { findByIds } from './by-ids.js';
import type { AttemptStatsDoc } from './documents.js';

export const HOUR_MS = 3_600_000;
/** How long an hour's stats are kept: the longest window the stats route answers (a week) and a day more. */
export const STATS_KEPT_MS = 8 * 24 * HOUR_MS;

/** What one flush adds to one subscription's hour (activities/attempt-stats.ts sums the attempts between flushes). */
export interface StatsIncrement extends AttemptCounts {
  integratorId: string;
  subscriptionId: string;
  /** The hour's start, ms since the epoch. */
  hour: number;
}

export const statsIdOf = (subscriptionId: string, hour: number): string => `${subscriptionId}|${hour}`;

/**
 * Per subscription and hour, the attempts recorded (`attempt_stats`): written by `_id` upserts that only add (so
 * writers on every worker count together), read by `_id`, expired after STATS_KEPT_MS (a TTL index, and the sweep of
 * src/store/expiring-repo.ts on the MongoDB-wire server).
 */
export function createAttemptStatsRepo(db: Db) {
  const stats = db.collection<AttemptStatsDoc>('attempt_stats');
  return {
    collection: stats,

    /** Adds each increment to its hour's document (created by the first): one unordered bulk write. */
    async add(increments: readonly StatsIncrement[]): Promise<void> {
      if (increments.length === 0) return;
      const ops = increments.map((s): AnyBulkWriteOperation<AttemptStatsDoc> => ({
        updateOne: {
          filter: { _id: statsIdOf(s.subscriptionId, s.hour) },
          update: {
            $inc: {
              attempts: s.attempts,
              succeeded: s.succeeded,
              latencySumMs: s.latencySumMs,
              ...Object.fromEntries(Object.entries(s.l).map(([n, count]) => [`l.${n}`, count])),
            },
            $max: { latencyMaxMs: s.latencyMaxMs },
            $setOnInsert: {
              integratorId: s.integratorId,
              subscriptionId: s.subscriptionId,
              hour: new Date(s.hour),
              expiresAt: new Date(s.hour + STATS_KEPT_MS),
              // An hour whose first attempts made no request (blocked) still gets its buckets, empty.
              ...(Object.keys(s.l).length === 0 ? { l: {} } : {}),
            },
          },
          upsert: true,
        },
      }));
      await stats.bulkWrite(ops, { ordered: false });
    },

    /** The subscription's documents of `hours` consecutive hours from `from` (an hour's start), null where none. */
    async hours(subscriptionId: string, from: number, hours: number): Promise<(AttemptStatsDoc | null)[]> {
      const ids = Array.from({ length: hours }, (_, n) => statsIdOf(subscriptionId, from + n * HOUR_MS));
      return await findByIds(stats, ids);
    },

    /** Every document of an integrator (its erasure). */
    async eraseIntegrator(integratorId: string): Promise<number> {
      return (await stats.deleteMany({ integratorId })).deletedCount;
    },
  };
}

export type AttemptStatsRepo = ReturnType<typeof createAttemptStatsRepo>;
