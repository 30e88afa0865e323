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

  /** `key`'s bucket, filled up to now (a new one full); moved to the end of the use order. */
  const current = (key: string): { tokens: number; at: number } => {
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
    return bucket;
  };
  /** Seconds until the bucket holds `cost` tokens (a cost above the burst counts as the burst); 0 when it does. */
  const waitFor = (bucket: { tokens: number }, cost: number): number => {
    const need = Math.min(cost, opts.burst);
    return bucket.tokens >= need ? 0 : (need - bucket.tokens) / opts.ratePerSec;
  };

  return {
    /** Spends `cost` tokens of `key`'s bucket: 0 when it had them, else the seconds until it will (nothing spent). */
    take(key: string, cost = 1): number {
      const bucket = current(key);
      const wait = waitFor(bucket, cost);
      if (wait === 0) bucket.tokens -= Math.min(cost, opts.burst);
      return wait;
    },
    /** What `take` would answer, spending nothing. */
    peek(key: string, cost = 1): number {
      return waitFor(current(key), cost);
    },
    /** Buckets held now (at most `maxKeys`). */
    get size(): number {
      return buckets.size;
    },
  };
}

export type TokenBuckets = ReturnType<typeof createTokenBuckets>;
