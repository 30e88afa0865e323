// Issue 11 item 5: unknown keys are remembered apart from known ones, so a flood of unknown keys cannot evict them.
// Issue 33 item 3: one database query per unknown key per minute at most, and a global budget of lookups for keys in
// neither map (a random key is new every time), which never holds back a key the cache knows.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createKeyCache, type AuthKey, type KeyCacheOptions } from '../../src/auth/key-cache.js';
import { compressedHexOf, generateP256Key } from '../../src/crypto/p256.js';

const randomKey = (i: number): string => `02${i.toString(16).padStart(64, '0')}`;
/** The integrator of a key found, else what the cache answered (null, or that it did not look). */
const integratorOf = (found: AuthKey | null | string): string | null =>
  typeof found === 'object' && found !== null ? found.integratorId : found;
const knownKeys = Array.from({ length: 3 }, () => compressedHexOf(generateP256Key()));

function cacheOverFakeRepo(opts: KeyCacheOptions & { maxEntries: number }) {
  const lookups: string[] = [];
  const repo = {
    findActiveKey: async (publicKey: string) => {
      lookups.push(publicKey);
      const i = knownKeys.indexOf(publicKey);
      return i < 0 ? null : { _id: `k${i}`, integratorId: 'i', publicKey, createdAt: new Date(0), revokedAt: null };
    },
  };
  // No lookup budget to speak of unless a test sets one.
  const base = { ttlMs: 60_000, negativeTtlMs: 60_000, unknownLookupsPerSec: 1_000_000 };
  return { cache: createKeyCache(repo, { ...base, ...opts }), lookups };
}

describe('key cache', () => {
  it('keeps every known key through a flood of unknown keys (no database lookup for them afterwards)', async () => {
    const { cache, lookups } = cacheOverFakeRepo({ maxEntries: 3, maxNegativeEntries: 100 });
    for (const k of knownKeys) assert.equal(integratorOf(await cache.get(k)), 'i');
    for (let i = 0; i < 1_000; i++) assert.equal(await cache.get(`03${i.toString(16).padStart(64, '0')}`), null);
    const before = lookups.length;
    for (const k of knownKeys) {
      assert.ok(cache.holds(k));
      assert.equal(integratorOf(await cache.get(k)), 'i');
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

  it('asks the database about one unknown key at most once a minute by default', async () => {
    let t = 0;
    const lookups: string[] = [];
    const repo = { findActiveKey: async (publicKey: string) => (lookups.push(publicKey), null) };
    const cache = createKeyCache(repo, { now: () => t });
    for (; t < 60_000; t += 500) assert.equal(await cache.get(randomKey(7)), null);
    assert.equal(lookups.length, 1, 'one query within the minute');
    assert.equal(await cache.get(randomKey(7)), null);
    assert.equal(lookups.length, 2, 'asked again once the minute is over');
  });

  it('looks up keys it has never seen within a global budget; beyond it, none, while known keys are still re-read', async () => {
    let t = 0;
    const { cache, lookups } = cacheOverFakeRepo({
      maxEntries: 10,
      now: () => t,
      ttlMs: 5_000,
      unknownLookupsPerSec: 20,
    });
    assert.ok(await cache.get(knownKeys[0]!));
    lookups.length = 0;
    const answers = new Map<unknown, number>();
    for (let i = 0; i < 1_000; i++) {
      const answer = await cache.get(randomKey(i));
      answers.set(answer, (answers.get(answer) ?? 0) + 1);
    }
    assert.equal(lookups.length, 19, 'the burst (20) less the known key first looked up');
    assert.deepEqual(
      [...answers],
      [
        [null, 19],
        ['not-looked-up', 981],
      ],
    );
    t = 6_000; // the known key's entry is stale; the budget refilled (20 s⁻¹, capped at 20)
    for (let i = 1_000; i < 1_100; i++) await cache.get(randomKey(i));
    assert.equal(lookups.length, 39);
    assert.equal(integratorOf(await cache.get(knownKeys[0]!)), 'i', 'a known key is re-read with the budget spent');
    assert.equal(lookups.length, 40);
    assert.equal(await cache.get(randomKey(5)), null, 'an unknown key remembered costs nothing and is not refused');
    assert.equal(lookups.length, 40);
    cache.invalidate(knownKeys[1]!); // registered through this instance
    assert.equal(integratorOf(await cache.get(knownKeys[1]!)), 'i', 'a key registered here is looked up regardless');
    assert.equal(await cache.get(knownKeys[2]!), 'not-looked-up', 'a key never seen here waits for the budget');
  });
});
