import { latencyQuantile } from '../../domain/latency-buckets.js';
import { HOUR_MS } from '../../store/attempt-stats-repo.js';
import type { AttemptStatsDoc } from '../../store/documents.js';
import type { SubscriptionStats } from '../schemas/stats.js';

type Counted = Pick<AttemptStatsDoc, 'attempts' | 'succeeded' | 'latencySumMs' | 'latencyMaxMs' | 'l'>;
type Shown = SubscriptionStats['total'];

const none: Counted = { attempts: 0, succeeded: 0, latencySumMs: 0, latencyMaxMs: 0, l: {} };

function shown(c: Counted): Shown {
  const requests = Object.values(c.l).reduce((a, b) => a + b, 0);
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
            p50: latencyQuantile(c.l, 0.5, c.latencyMaxMs) ?? 0,
            p95: latencyQuantile(c.l, 0.95, c.latencyMaxMs) ?? 0,
            max: c.latencyMaxMs,
          },
  };
}

function sum(docs: readonly Counted[]): Counted {
  const l: Record<string, number> = {};
  for (const d of docs) for (const [n, count] of Object.entries(d.l ?? {})) l[n] = (l[n] ?? 0) + count;
  return {
    attempts: docs.reduce((a, d) => a + d.attempts, 0),
    succeeded: docs.reduce((a, d) => a + d.succeeded, 0),
    latencySumMs: docs.reduce((a, d) => a + d.latencySumMs, 0),
    latencyMaxMs: docs.reduce((a, d) => Math.max(a, d.latencyMaxMs), 0),
    l,
  };
}

/** The stats answer of `docs` (one per hour from `from`, null for an hour with no attempt). */
export function statsView(subscriptionId: string, from: number, docs: readonly (AttemptStatsDoc | null)[]) {
  const counted = docs.map((d) => d ?? none);
  return {
    subscriptionId,
    from: new Date(from).toISOString(),
    to: new Date(from + docs.length * HOUR_MS).toISOString(),
    hours: counted.map((c, n) => ({ hour: new Date(from + n * HOUR_MS).toISOString(), ...shown(c) })),
    total: shown(sum(counted)),
  };
}
