import type { KeyObject } from 'node:crypto';
import { parsePublicKeyHex } from '../crypto/p256.js';
import type { IntegratorsRepo } from '../store/integrators-repo.js';

export interface AuthKey {
  readonly keyId: string;
  readonly integratorId: string;
  readonly keyObject: KeyObject;
}

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
  /** Unknown keys are remembered for less time, so a newly registered key works quickly everywhere. */
  negativeTtlMs?: number;
  maxEntries?: number;
  /** Unknown keys remembered at once, in their own map: a flood of unknown keys cannot evict known ones. */
  maxNegativeEntries?: number;
  now?: () => number;
}

/**
 * Public key (compressed hex) → its active key record and a parsed KeyObject. A known key costs no database round
 * trip within `ttlMs`; the KeyObject is parsed once and kept across re-checks. Known and unknown keys are kept in two
 * separately bounded maps (oldest evicted first), so unknown keys only ever evict unknown keys.
 */
export function createKeyCache(repo: Pick<IntegratorsRepo, 'findActiveKey'>, opts: KeyCacheOptions = {}) {
  const ttl = opts.ttlMs ?? 5_000;
  const negativeTtl = opts.negativeTtlMs ?? 1_000;
  const max = opts.maxEntries ?? 10_000;
  const maxNegative = opts.maxNegativeEntries ?? 10_000;
  const now = opts.now ?? Date.now;
  const known = new Map<string, Entry<AuthKey>>();
  const unknown = new Map<string, number>(); // public key → checkedAt
  const inFlight = new Map<string, Promise<AuthKey | null>>();

  async function load(publicKey: string, previous: AuthKey | null): Promise<AuthKey | null> {
    const doc = await repo.findActiveKey(publicKey);
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
    /** The active key for a compressed lowercase hex public key, or null when unknown or revoked. */
    async get(publicKey: string): Promise<AuthKey | null> {
      const entry = known.get(publicKey);
      if (entry && now() - entry.checkedAt < ttl) return entry.key;
      const missedAt = unknown.get(publicKey);
      if (missedAt !== undefined && now() - missedAt < negativeTtl) return null;
      let pending = inFlight.get(publicKey);
      if (!pending) {
        pending = load(publicKey, entry?.key ?? null).finally(() => inFlight.delete(publicKey));
        inFlight.set(publicKey, pending);
      }
      return await pending;
    },
    /** Forgets a key at once (after a revocation or registration in this process). */
    invalidate(publicKey: string): void {
      known.delete(publicKey);
      unknown.delete(publicKey);
    },
    /** Whether a key is held as known (tests and diagnostics). */
    holds(publicKey: string): boolean {
      return known.has(publicKey);
    },
  };
}

export type KeyCache = ReturnType<typeof createKeyCache>;
