import type { KeyObject } from 'node:crypto';
import { parsePublicKeyHex } from '../crypto/p256.js';
import type { IntegratorKeyDoc } from '../store/integrators-repo.js';
import { createKeyDirectory, type KeyDirectoryOptions, type KeySource } from './key-directory.js';

export interface AuthKey {
  readonly keyId: string;
  readonly integratorId: string;
  readonly keyObject: KeyObject;
}

/** Insertion-ordered map bounded to `max` entries: setting a key moves it last, the first is evicted. */
function boundedSet<T>(map: Map<string, T>, max: number, key: string, value: T): void {
  map.delete(key);
  if (map.size >= max) map.delete(map.keys().next().value as string);
  map.set(key, value);
}

export interface KeyCacheOptions extends KeyDirectoryOptions {
  /** How long a key found in no refresh is answered as unknown without waiting for another one. */
  negativeTtlMs?: number;
  /** Unknown keys remembered at once; random keys evict only each other. */
  maxNegativeEntries?: number;
  /** Parsed public keys kept at once (parsing costs about three verifications). */
  maxParsedKeys?: number;
}

/**
 * Public key (compressed hex) → its active key record and a parsed KeyObject, from the key directory (every active
 * key in memory, src/auth/key-directory.ts). A key absent from it waits for a refresh begun after the request came;
 * absent then too, it is remembered as unknown for `negativeTtlMs`, in a map of its own. The KeyObject is parsed once
 * per key and kept.
 */
export function createKeyCache(source: KeySource, opts: KeyCacheOptions = {}) {
  const now = opts.now ?? Date.now;
  const negativeTtl = opts.negativeTtlMs ?? 60_000;
  const maxNegative = opts.maxNegativeEntries ?? 10_000;
  const maxParsed = opts.maxParsedKeys ?? 10_000;
  const directory = createKeyDirectory(source, opts);
  const unknown = new Map<string, number>(); // public key → when a refresh last failed to find it
  const parsed = new Map<string, KeyObject>(); // key id → its KeyObject

  const found = (publicKey: string): AuthKey | undefined => {
    const record = directory.lookup(publicKey);
    if (!record) return undefined;
    let keyObject = parsed.get(record.keyId);
    if (!keyObject) {
      keyObject = parsePublicKeyHex(publicKey).keyObject;
      boundedSet(parsed, maxParsed, record.keyId, keyObject);
    }
    return { keyId: record.keyId, integratorId: record.integratorId, keyObject };
  };

  return {
    directory,
    /**
     * The active key for a compressed lowercase hex public key, or null when unknown or revoked. With `wait` false a
     * key the directory does not hold is answered null at once instead of waiting for a refresh.
     */
    async get(publicKey: string, { wait = true }: { wait?: boolean } = {}): Promise<AuthKey | null> {
      if (!directory.isFresh()) await directory.ensureFresh();
      const key = found(publicKey);
      if (key) return key;
      const missedAt = unknown.get(publicKey);
      if (!wait || (missedAt !== undefined && now() - missedAt < negativeTtl)) return null;
      await directory.refresh();
      const later = found(publicKey);
      if (later) return later;
      boundedSet(unknown, maxNegative, publicKey, now());
      return null;
    },
    /** A key registered or revoked through this instance: it works, or stops working, here at once. */
    changedHere(doc: IntegratorKeyDoc): void {
      if (doc.revokedAt === null) unknown.delete(doc.publicKey);
      directory.changedHere(doc);
    },
    /** Whether this key is still the active one (checked again once a slow body is in: it may have been revoked). */
    stillActive: (publicKey: string, keyId: string): boolean => directory.lookup(publicKey)?.keyId === keyId,
    /** Whether the directory holds a key as active (tests and diagnostics). */
    holds: (publicKey: string): boolean => directory.lookup(publicKey) !== undefined,
  };
}

export type KeyCache = ReturnType<typeof createKeyCache>;
