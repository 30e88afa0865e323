/**
 * Remembers the digests of accepted signed messages for the length of the timestamp window, so the same signed
 * request is accepted once. Per process (docs/auth.md explains what that means for several API instances).
 * Entries expire in insertion order, so a FIFO sweep is exact; the size bound sheds the oldest first.
 */
export function createReplayCache(opts: { windowMs: number; maxEntries?: number; now?: () => number }) {
  const max = opts.maxEntries ?? 1_000_000;
  const now = opts.now ?? Date.now;
  const seen = new Map<string, number>(); // digest → expiry (ms)

  const sweep = (t: number): void => {
    for (const [digest, expiry] of seen) {
      if (expiry > t && seen.size < max) break;
      seen.delete(digest);
    }
  };

  return {
    /** True the first time a digest is seen within the window; false for a replay. */
    firstUse(digest: string): boolean {
      const t = now();
      sweep(t);
      const expiry = seen.get(digest);
      if (expiry !== undefined && expiry > t) return false;
      seen.set(digest, t + opts.windowMs);
      return true;
    },
    /** Drops a digest recorded by `firstUse` whose request was not accepted after all (the shared write failed). */
    forget(digest: string): void {
      seen.delete(digest);
    },
    get size(): number {
      return seen.size;
    },
  };
}

export type ReplayCache = ReturnType<typeof createReplayCache>;
