import { latencyQuantile } from '../../domain/latency-buckets.js';
import { HOUR_MS } from '../../store/attempt-stats-repo.js';
import type { AttemptStatsDoc } from '../../store/documents.js';
import { addCounts, type AttemptCounts } from '../../domain/attempt-counts.js';
import type { SubscriptionStats } from '../schemas/stats.js';

type Shown = SubscriptionStats['total'];

/** An hour's figures; a document whose attempts made no request (all blocked) has no latency buckets. */
function shown(c: Readonly<AttemptCounts>): Shown {
  const buckets = c.l ?? {};
  const requests = Object.values(buckets).reduce((a, b) => a + b, 0);
  return {
    attempts: c.attempts,
    succeeded: c.succeeded,
    failed: c.attempts - c.succeeded,
    successRate: c.attempts === 0 ? null : c.succeeded / c.attempts,
    latencyMs:
      requests === 0
        ? null
        : {
            avg: Math.round(c.latencySumMs / requests),
            p50: latencyQuantile(buckets, 0.5, c.latencyMaxMs) ?? 0,
            p95: latencyQuantile(buckets, 0.95, c.latencyMaxMs) ?? 0,
            max: c.latencyMaxMs,
          },
  };
}

const none = (): AttemptCounts => ({ attempts: 0, succeeded: 0, latencySumMs: 0, latencyMaxMs: 0, l: {} });

/** The stats answer of `docs` (one per hour from `from`, null for an hour with no attempt). */
export function statsView(subscriptionId: string, from: number, docs: readonly (AttemptStatsDoc | null)[]) {
  const counted = docs.map((d) => d ?? none());
  return {
    subscriptionId,
    from: new Date(from).toISOString(),
    to: new Date(from + docs.length * HOUR_MS).toISOString(),
    hours: counted.map((c, n) => ({ hour: new Date(from + n * HOUR_MS).toISOString(), ...shown(c) })),
    total: shown(counted.reduce(addCounts, none())),
  };
}
