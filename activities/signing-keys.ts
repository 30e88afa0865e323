import type { KeyObject } from 'node:crypto';
import type { KeyVault } from '../src/crypto/key-encryption.js';
import type { SigningKeyDoc } from '../src/store/documents.js';

/**
 * Opened signing keys by key id: each sealed key is decrypted once per worker process, then signing is a single
 * OpenSSL call on a cached KeyObject. Bounded; keys never change under an id, so no invalidation is needed.
 */
export function createSigningKeyCache(vault: KeyVault, maxEntries = 10_000) {
  const cache = new Map<string, KeyObject>();
  return {
    /** The opened key `keyId`; `load` fetches its sealed record on a miss only. */
    async get(keyId: string, load: () => Promise<SigningKeyDoc>): Promise<KeyObject> {
      const cached = cache.get(keyId);
      if (cached) return cached;
      const doc = await load();
      const key = vault.open(doc.sealed, doc.subscriptionId);
      if (cache.size >= maxEntries) cache.delete(cache.keys().next().value as string);
      cache.set(keyId, key);
      return key;
    },
  };
}
