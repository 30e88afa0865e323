export interface DnsCacheOptions {
  /** Names kept at most; past it the least recently used goes (default 10 000). */
  maxEntries?: number;
  /** Bounds on an answer's TTL, in seconds (default 5 and 300). */
  minTtlSec?: number;
  maxTtlSec?: number;
  /** How long a name that does not exist (ENOTFOUND) or has no address (ENODATA) stays so (default 5 s). */
  negativeTtlSec?: number;
  /** Milliseconds now (tests move it). */
  now?: () => number;
}

/** A cached answer: the addresses, or the code of a name that has none. */
export type CachedAnswer = { addresses: readonly string[] } | { code: string };

export interface DnsCache {
  get(name: string): CachedAnswer | undefined;
  /** Keeps `addresses` for `ttlSec` held between the floor and the ceiling. */
  putAnswer(name: string, addresses: readonly string[], ttlSec: number): void;
  putNegative(name: string, code: string): void;
  readonly size: number;
}

export const DNS_CACHE_DEFAULTS = { maxEntries: 10_000, minTtlSec: 5, maxTtlSec: 300, negativeTtlSec: 5 } as const;

/**
 * A bounded TTL cache of DNS answers. A Map keeps insertion order, so re-inserting on every hit makes its first key
 * the least recently used. The floor keeps a TTL-0 zone from costing one query per delivery; the ceiling bounds how
 * long a moved receiver keeps being looked for at its old address (every connection re-checks what it connects to
 * either way, so neither bound weakens the address rules).
 */
export function createDnsCache(options: DnsCacheOptions = {}): DnsCache {
  const { maxEntries, minTtlSec, maxTtlSec, negativeTtlSec } = { ...DNS_CACHE_DEFAULTS, ...options };
  const now = options.now ?? Date.now;
  const entries = new Map<string, { answer: CachedAnswer; expires: number }>();

  const put = (name: string, answer: CachedAnswer, ttlSec: number) => {
    entries.delete(name);
    if (maxEntries <= 0) return;
    while (entries.size >= maxEntries) {
      const oldest = entries.keys().next();
      if (oldest.done) break;
      entries.delete(oldest.value);
    }
    entries.set(name, { answer, expires: now() + ttlSec * 1000 });
  };

  return {
    get(name) {
      const entry = entries.get(name);
      if (!entry) return undefined;
      entries.delete(name);
      if (entry.expires <= now()) return undefined;
      entries.set(name, entry);
      return entry.answer;
    },
    putAnswer(name, addresses, ttlSec) {
      const ttl = Math.min(maxTtlSec, Math.max(minTtlSec, Number.isFinite(ttlSec) ? ttlSec : 0));
      put(name, { addresses: [...addresses] }, ttl);
    },
    putNegative(name, code) {
      put(name, { code }, negativeTtlSec);
    },
    get size() {
      return entries.size;
    },
  };
}
