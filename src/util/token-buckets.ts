export interface TokenBucketsOptions {
  /** Tokens added per second to each bucket. */
  readonly ratePerSec: number;
  /** What a bucket holds at most, and what a new one starts with. */
  readonly burst: number;
  /** Buckets kept at once; the least recently used is dropped first (it comes back full). */
  readonly maxKeys?: number;
  readonly now?: () => number;
}

/**
 * One token bucket per key, in this process. `take` spends a token when there is one; a refused request spends
 * nothing, so a client that keeps asking is still served at the rate.
 */
export function createTokenBuckets(opts: TokenBucketsOptions) {
  const now = opts.now ?? Date.now;
  const max = opts.maxKeys ?? 100_000;
  // Map order is use order: a bucket is moved to the end on every take, so the first one is the least recently used.
  const buckets = new Map<string, { tokens: number; at: number }>();

  return {
    /** Spends one token of `key`'s bucket: 0 when it had one, else the seconds until it will (nothing spent). */
    take(key: string): number {
      const t = now();
      const found = buckets.get(key);
      const bucket = found ?? { tokens: opts.burst, at: t };
      if (found) {
        buckets.delete(key);
        bucket.tokens = Math.min(opts.burst, bucket.tokens + (Math.max(0, t - bucket.at) / 1000) * opts.ratePerSec);
        bucket.at = t;
      } else if (buckets.size >= max) {
        buckets.delete(buckets.keys().next().value as string);
      }
      buckets.set(key, bucket);
      if (bucket.tokens >= 1) {
        bucket.tokens -= 1;
        return 0;
      }
      return (1 - bucket.tokens) / opts.ratePerSec;
    },
    /** Buckets held now (at most `maxKeys`). */
    get size(): number {
      return buckets.size;
    },
  };
}

export type TokenBuckets = ReturnType<typeof createTokenBuckets>;
