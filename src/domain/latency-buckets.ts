/**
 * Latency in fixed buckets: what hourly stats keep instead of every latency (a sum, a maximum and these counts), and
 * the quantiles read back from them. Bucket n counts latencies at most LATENCY_BUCKET_EDGES_MS[n] (and above the
 * edge before it); the last bucket, n = LATENCY_BUCKET_EDGES_MS.length, counts the ones above every edge.
 */
export const LATENCY_BUCKET_EDGES_MS = [25, 50, 100, 250, 500, 1_000, 2_500, 5_000, 10_000] as const;

/** The bucket that counts `ms`. */
export function latencyBucketOf(ms: number): number {
  const n = LATENCY_BUCKET_EDGES_MS.findIndex((edge) => ms <= edge);
  return n === -1 ? LATENCY_BUCKET_EDGES_MS.length : n;
}

/**
 * The `q` quantile (0 < q ≤ 1) of the latencies counted in `buckets` (bucket number → count), as an upper bound:
 * the edge of the bucket that holds it, or `maxMs` when that is lower or the bucket is the last (above every edge).
 * Null when nothing is counted.
 */
export function latencyQuantile(buckets: Readonly<Record<string, number>>, q: number, maxMs: number): number | null {
  const counts = Array.from({ length: LATENCY_BUCKET_EDGES_MS.length + 1 }, (_, n) => buckets[String(n)] ?? 0);
  const total = counts.reduce((a, b) => a + b, 0);
  if (total === 0) return null;
  const rank = Math.ceil(q * total);
  let seen = 0;
  for (const [n, count] of counts.entries()) {
    seen += count;
    if (seen >= rank) return Math.min(LATENCY_BUCKET_EDGES_MS[n] ?? maxMs, maxMs);
  }
  return maxMs;
}
