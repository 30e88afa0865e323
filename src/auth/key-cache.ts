import type { KeyObject } from 'node:crypto';
import { parsePublicKeyHex } from '../crypto/p256.js';
import type { IntegratorsRepo } from '../store/integrators-repo.js';

export interface AuthKey {
  readonly keyId: string;
  readonly integratorId: string;
  readonly keyObject: KeyObject;
}

interface Entry {
  key: AuthKey | null;
  checkedAt: number;
}

export interface KeyCacheOptions {
  /** How long a lookup is trusted before the database is asked again: the revocation delay of other processes. */
  ttlMs?: number;
  /** Unknown keys are remembered for less time, so a newly registered key works quickly everywhere. */
  negativeTtlMs?: number;
  maxEntries?: number;
  now?: () => number;
}

/**
 * Public key (compressed hex) → its active key record and a parsed KeyObject. A known key costs no database round
 * trip within `ttlMs`; the KeyObject is parsed once and kept across re-checks. Bounded, oldest evicted first.
 */
export function createKeyCache(repo: Pick<IntegratorsRepo, 'findActiveKey'>, opts: KeyCacheOptions = {}) {
  const ttl = opts.ttlMs ?? 5_000;
  const negativeTtl = opts.negativeTtlMs ?? 1_000;
  const max = opts.maxEntries ?? 10_000;
  const now = opts.now ?? Date.now;
  const entries = new Map<string, Entry>();
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
    entries.delete(publicKey);
    if (entries.size >= max) entries.delete(entries.keys().next().value as string);
    entries.set(publicKey, { key, checkedAt: now() });
    return key;
  }

  return {
    /** The active key for a compressed lowercase hex public key, or null when unknown or revoked. */
    async get(publicKey: string): Promise<AuthKey | null> {
      const entry = entries.get(publicKey);
      if (entry && now() - entry.checkedAt < (entry.key ? ttl : negativeTtl)) return entry.key;
      let pending = inFlight.get(publicKey);
      if (!pending) {
        pending = load(publicKey, entry?.key ?? null).finally(() => inFlight.delete(publicKey));
        inFlight.set(publicKey, pending);
      }
      return await pending;
    },
    /** Forgets a key at once (after a revocation or registration in this process). */
    invalidate(publicKey: string): void {
      entries.delete(publicKey);
    },
  };
}

export type KeyCache = ReturnType<typeof createKeyCache>;
