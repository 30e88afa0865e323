import type { KeyObject } from 'node:crypto';
import { parsePublicKeyHex } from '../crypto/p256.js';
import type { IntegratorsRepo } from '../store/integrators-repo.js';
import { createTokenBuckets } from '../util/token-buckets.js';

export interface AuthKey {
  readonly keyId: string;
  readonly integratorId: string;
  readonly keyObject: KeyObject;
}

/** What `get` answers for a key it did not look up: the unknown-key lookup budget was spent. */
export const NOT_LOOKED_UP = 'not-looked-up';

interface Entry<T> {
  key: T;
  checkedAt: number;
}

/** Insertion-ordered map bounded to `max` entries: setting a key moves it last, the first is evicted. */
function boundedSet<T>(map: Map<string, T>, max: number, key: string, value: T): void {
  map.delete(key);
  if (map.size >= max) map.delete(map.keys().next().value as string);
  map.set(key, value);
}

export interface KeyCacheOptions {
  /** How long a lookup is trusted before the database is asked again: the revocation delay of other processes. */
  ttlMs?: number;
  /** How long an unknown key is remembered: at most one query per unknown key per this period. */
  negativeTtlMs?: number;
  maxEntries?: number;
  /** Unknown keys remembered at once, in their own map: a flood of unknown keys cannot evict known ones. */
  maxNegativeEntries?: number;
  /**
   * Database lookups per second (and at once, the burst) for keys in neither map: random keys are new every time, so
   * the negative cache alone does not bound their queries. Keys this cache holds as known are re-read regardless.
   */
  unknownLookupsPerSec?: number;
  unknownLookupBurst?: number;
  now?: () => number;
}

/**
 * Public key (compressed hex) → its active key record and a parsed KeyObject. A known key costs no database round
 * trip within `ttlMs`; the KeyObject is parsed once and kept across re-checks. Known and unknown keys are kept in two
 * separately bounded maps (oldest evicted first), so unknown keys only ever evict unknown keys; a key in neither map
 * costs a query only while the unknown-key budget lasts.
 */
export function createKeyCache(repo: Pick<IntegratorsRepo, 'findActiveKey'>, opts: KeyCacheOptions = {}) {
  const ttl = opts.ttlMs ?? 5_000;
  const negativeTtl = opts.negativeTtlMs ?? 60_000;
  const max = opts.maxEntries ?? 10_000;
  const maxNegative = opts.maxNegativeEntries ?? 10_000;
  const now = opts.now ?? Date.now;
  const perSec = opts.unknownLookupsPerSec ?? 50;
  // One bucket for every unknown key together: random keys cannot buy more lookups by being many.
  const lookups = createTokenBuckets({ ratePerSec: perSec, burst: opts.unknownLookupBurst ?? perSec, now, maxKeys: 1 });
  const mayLookUpUnknown = (): boolean => lookups.take('unknown') === 0;
  const known = new Map<string, Entry<AuthKey>>();
  const unknown = new Map<string, number>(); // public key → checkedAt
  // Keys registered or revoked through this instance (admin calls, not a caller's choice): looked up whatever the budget.
  const vouched = new Map<string, true>();
  const inFlight = new Map<string, Promise<AuthKey | null>>();

  async function load(publicKey: string, previous: AuthKey | null): Promise<AuthKey | null> {
    const doc = await repo.findActiveKey(publicKey);
    vouched.delete(publicKey);
    const key: AuthKey | null = doc
      ? {
          keyId: doc._id,
          integratorId: doc.integratorId,
          keyObject: previous?.keyId === doc._id ? previous.keyObject : parsePublicKeyHex(doc.publicKey).keyObject,
        }
      : null;
    if (key) {
      unknown.delete(publicKey);
      boundedSet(known, max, publicKey, { key, checkedAt: now() });
    } else {
      known.delete(publicKey);
      boundedSet(unknown, maxNegative, publicKey, now());
    }
    return key;
  }

  return {
    /**
     * The active key for a compressed lowercase hex public key, null when unknown or revoked, or NOT_LOOKED_UP for a
     * key this cache has never known when the unknown-key lookup budget is spent.
     */
    async get(publicKey: string): Promise<AuthKey | null | typeof NOT_LOOKED_UP> {
      const entry = known.get(publicKey);
      if (entry && now() - entry.checkedAt < ttl) return entry.key;
      const missedAt = unknown.get(publicKey);
      if (missedAt !== undefined && now() - missedAt < negativeTtl) return null;
      let pending = inFlight.get(publicKey);
      if (!pending) {
        if (!entry && !vouched.has(publicKey) && !mayLookUpUnknown()) return NOT_LOOKED_UP;
        pending = load(publicKey, entry?.key ?? null).finally(() => inFlight.delete(publicKey));
        inFlight.set(publicKey, pending);
      }
      return await pending;
    },
    /** Forgets a key at once (after a revocation or registration in this process); its next lookup is not budgeted. */
    invalidate(publicKey: string): void {
      known.delete(publicKey);
      unknown.delete(publicKey);
      boundedSet(vouched, max, publicKey, true);
    },
    /** Whether a key is held as known (tests and diagnostics). */
    holds(publicKey: string): boolean {
      return known.has(publicKey);
    },
  };
}

export type KeyCache = ReturnType<typeof createKeyCache>;
