import { MongoBulkWriteError } from 'mongodb';
import { addCounts } from '../src/domain/attempt-counts.js';
import { latencyBucketOf } from '../src/domain/latency-buckets.js';
import { HOUR_MS, type AttemptStatsRepo, type StatsIncrement } from '../src/store/attempt-stats-repo.js';
import type { AttemptDoc } from '../src/store/documents.js';
import type { LogError } from './attempt-record.js';

/** How long recorded attempts are summed in memory before they are written. */
export const STATS_FLUSH_MS = 1_000;
/** Hours summed at most between two writes (one per subscription and hour); past it, a write starts at once. */
const MAX_PENDING = 5_000;

/** Writes that may fail in a row before what they carry is dropped (a stats gap, never an attempt's record). */
const MAX_FAILED_WRITES = 5;

/** Outcomes recorded without a request: counted as failed attempts, with no latency. */
const NO_REQUEST: ReadonlySet<string> = new Set(['blocked', 'endpoint_unresponsive']);

/**
 * The hourly attempt stats of the subscriptions this worker delivers to (docs/deliveries.md, "Delivery stats"): each
 * recorded attempt is added in memory, and what was added is written at most once a STATS_FLUSH_MS per subscription
 * and hour, one `$inc` each, off the attempt's path. What a write fails to add is added back and retried with the
 * next one, MAX_FAILED_WRITES times in a row at most; a worker that dies loses at most its last second of counts (the
 * attempts themselves are recorded).
 */
export function createAttemptStats(deps: {
  repo: Pick<AttemptStatsRepo, 'add'>;
  logError: LogError;
  flushEveryMs?: number;
}) {
  const every = deps.flushEveryMs ?? STATS_FLUSH_MS;
  let pending = new Map<string, StatsIncrement>();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let writing: Promise<void> = Promise.resolve();
  let failures = 0; // writes failed in a row

  const merge = (into: Map<string, StatsIncrement>, s: StatsIncrement) => {
    const key = `${s.subscriptionId}|${s.hour}`;
    const at = into.get(key);
    if (at) addCounts(at, s);
    else into.set(key, { ...s, l: { ...s.l } });
  };

  function flush(): Promise<void> {
    if (timer) clearTimeout(timer);
    timer = undefined;
    const batch = pending;
    pending = new Map();
    if (batch.size === 0) return writing;
    // One write at a time: a slow write delays the next, whose counts keep adding up meanwhile.
    // It never rejects (a failure is logged, and the log itself may not throw it on), so one write never stops the next.
    writing = writing
      .then(async () => {
        const items = [...batch.values()];
        try {
          await deps.repo.add(items);
          failures = 0;
        } catch (err) {
          failures += 1;
          const reason = err instanceof Error ? err.message : String(err);
          if (failures > MAX_FAILED_WRITES) {
            // The database has been out of reach for a while (or this worker is closing): drop what was summed so far.
            deps.logError('attempt stats dropped after failed writes', { hours: batch.size, failures, reason });
            return;
          }
          // What the server says it did not write is added back; with no such answer (the connection), all of it.
          const failed = err instanceof MongoBulkWriteError ? err.writeErrors : null;
          const again = failed ? [failed].flat().map((e) => items[e.index]) : items;
          for (const s of again) if (s) merge(pending, s);
          schedule();
          deps.logError('attempt stats not written; retried with the next write', { hours: batch.size, reason });
        }
      })
      .catch(() => undefined);
    return writing;
  }

  function schedule(): void {
    if (timer) return;
    timer = setTimeout(() => void flush(), every);
    timer.unref();
  }

  return {
    /** Adds a recorded attempt to its subscription's hour. */
    add(subscriptionId: string, attempt: Pick<AttemptDoc, 'integratorId' | 'outcome' | 'latencyMs' | 'createdAt'>) {
      const requested = !NO_REQUEST.has(attempt.outcome);
      const at = attempt.createdAt.getTime();
      merge(pending, {
        integratorId: attempt.integratorId,
        subscriptionId,
        hour: at - (at % HOUR_MS),
        attempts: 1,
        succeeded: attempt.outcome === 'succeeded' ? 1 : 0,
        latencySumMs: requested ? attempt.latencyMs : 0,
        latencyMaxMs: requested ? attempt.latencyMs : 0,
        l: requested ? { [String(latencyBucketOf(attempt.latencyMs))]: 1 } : {},
      });
      if (pending.size >= MAX_PENDING) void flush();
      else schedule();
    },

    /** Writes what was added so far; settles when every write asked for so far has ended. */
    flush,
  };
}

export type AttemptStats = ReturnType<typeof createAttemptStats>;
