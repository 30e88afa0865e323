import type { KeyObject } from 'node:crypto';
import type { KeyVault } from '../src/crypto/key-encryption.js';
import type { SigningKeyDoc } from '../src/store/documents.js';

/**
 * A signing key that cannot be opened: its record is missing, or its seal does not open under this master key
 * (wrong master key, corrupt or tampered bytes). Retrying cannot help: it needs an operator, so the attempt ends
 * (docs/deliveries.md: signing_key_unavailable).
 */
export class SigningKeyUnavailable extends Error {
  override readonly name = 'SigningKeyUnavailable';
}

/**
 * Opened signing keys by key id: each sealed key is decrypted once per worker process, then signing is a single
 * OpenSSL call on a cached KeyObject. Bounded; keys never change under an id, so no invalidation is needed.
 */
export function createSigningKeyCache(vault: KeyVault, maxEntries = 10_000) {
  const cache = new Map<string, KeyObject>();
  return {
    /**
     * The opened key `keyId`; `load` fetches its sealed record on a miss only (null: no such record). Throws
     * SigningKeyUnavailable when it cannot be opened; a failing `load` (database down) throws as it is.
     */
    async get(keyId: string, load: () => Promise<SigningKeyDoc | null>): Promise<KeyObject> {
      const cached = cache.get(keyId);
      if (cached) return cached;
      const doc = await load();
      if (!doc) throw new SigningKeyUnavailable(`signing key ${keyId} has no record`);
      let key: KeyObject;
      try {
        key = vault.open(doc.sealed, doc.subscriptionId);
      } catch (err) {
        // Opening is pure computation over the record: whatever it throws, trying again cannot help.
        const reason = err instanceof Error ? err.message : String(err);
        throw new SigningKeyUnavailable(`signing key ${keyId} does not open: ${reason}`);
      }
      if (cache.size >= maxEntries) cache.delete(cache.keys().next().value as string);
      cache.set(keyId, key);
      return key;
    },
  };
}
