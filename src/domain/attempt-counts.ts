/**
 * What an hour of a subscription's attempts is kept as (src/store/attempt-stats-repo.ts): counts, the latencies' sum and
 * maximum, and latency bucket number → attempts (src/domain/latency-buckets.ts). Absent buckets count 0.
 */
export interface AttemptCounts {
  attempts: number;
  succeeded: number;
  latencySumMs: number;
  latencyMaxMs: number;
  l: Record<string, number>;
}

/** Adds `from` to `into` (changed in place); what the worker sums between writes and the stats route over hours. */
export function addCounts(into: AttemptCounts, from: Readonly<AttemptCounts>): AttemptCounts {
  into.attempts += from.attempts;
  into.succeeded += from.succeeded;
  into.latencySumMs += from.latencySumMs;
  into.latencyMaxMs = Math.max(into.latencyMaxMs, from.latencyMaxMs);
  for (const [n, count] of Object.entries(from.l ?? {})) into.l[n] = (into.l[n] ?? 0) + count;
  return into;
}
