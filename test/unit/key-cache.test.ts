// Issue 11 item 5: unknown keys are remembered apart from known ones, so a flood of unknown keys cannot evict them.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createKeyCache } from '../../src/auth/key-cache.js';
import { compressedHexOf, generateP256Key } from '../../src/crypto/p256.js';

const knownKeys = Array.from({ length: 3 }, () => compressedHexOf(generateP256Key()));

function cacheOverFakeRepo(opts: { maxEntries: number; maxNegativeEntries?: number }) {
  const lookups: string[] = [];
  const repo = {
    findActiveKey: async (publicKey: string) => {
      lookups.push(publicKey);
      const i = knownKeys.indexOf(publicKey);
      return i < 0 ? null : { _id: `k${i}`, integratorId: 'i', publicKey, createdAt: new Date(0), revokedAt: null };
    },
  };
  return { cache: createKeyCache(repo, { ttlMs: 60_000, negativeTtlMs: 60_000, ...opts }), lookups };
}

describe('key cache', () => {
  it('keeps every known key through a flood of unknown keys (no database lookup for them afterwards)', async () => {
    const { cache, lookups } = cacheOverFakeRepo({ maxEntries: 3, maxNegativeEntries: 100 });
    for (const k of knownKeys) assert.equal((await cache.get(k))?.integratorId, 'i');
    for (let i = 0; i < 1_000; i++) assert.equal(await cache.get(`03${i.toString(16).padStart(64, '0')}`), null);
    const before = lookups.length;
    for (const k of knownKeys) {
      assert.ok(cache.holds(k));
      assert.equal((await cache.get(k))?.integratorId, 'i');
    }
    assert.equal(lookups.length, before, 'known keys were served from the cache');
  });

  it('bounds the unknown keys on their own and still answers them', async () => {
    const { cache, lookups } = cacheOverFakeRepo({ maxEntries: 3, maxNegativeEntries: 10 });
    const unknown = Array.from({ length: 20 }, (_, i) => `02${i.toString(16).padStart(64, '0')}`);
    for (const k of unknown) assert.equal(await cache.get(k), null);
    lookups.length = 0;
    for (const k of unknown.slice(10)) assert.equal(await cache.get(k), null); // the newest 10 are remembered
    assert.equal(lookups.length, 0);
    assert.equal(await cache.get(unknown[0]!), null); // the oldest was evicted: asked again
    assert.equal(lookups.length, 1);
  });

  it('forgets an unknown key once it is registered (invalidate), and a known one once revoked', async () => {
    const { cache } = cacheOverFakeRepo({ maxEntries: 3 });
    assert.equal(await cache.get('02'.padEnd(66, 'f')), null);
    cache.invalidate('02'.padEnd(66, 'f'));
    assert.ok(await cache.get(knownKeys[0]!));
    cache.invalidate(knownKeys[0]!);
    assert.equal(cache.holds(knownKeys[0]!), false);
  });
});
