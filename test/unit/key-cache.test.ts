// Issue 11 item 5, issue 33 items 1 and 3: every active key is held in memory (the key directory), so a key in use
// costs no query and a flood of random keys can neither evict it nor hold it back; a key the directory does not hold
// waits for a refresh shared by every such request (at most one per minGapMs), so random keys cost no query of their
// own, and a key registered on another instance a moment ago is still found on its first request.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createAuthenticator } from '../../src/auth/authenticator.js';
import { createKeyCache, type KeyCacheOptions } from '../../src/auth/key-cache.js';
import { createReplayCache } from '../../src/auth/replay-cache.js';
import { compressedHexOf, generateP256Key } from '../../src/crypto/p256.js';
import { requestSigningInput, signRequest } from '../../src/crypto/request-signature.js';
import type { IntegratorKeyDoc } from '../../src/store/integrators-repo.js';

const randomKey = (i: number): string => `02${i.toString(16).padStart(64, '0')}`;
const newKey = (): string => compressedHexOf(generateP256Key());

/** A key table as the database holds it, and the queries the directory sent it. */
function fakeSource() {
  const docs = new Map<string, IntegratorKeyDoc>();
  const queries: string[] = [];
  let failing = false;
  let held: Promise<void> | undefined;
  let taken: (() => void) | undefined;
  const ask = (what: string) => {
    queries.push(what);
    if (failing) throw new Error('database unavailable');
  };
  /** What the next query read, answered only once `release` is called (the read itself happens at once). */
  const answer = async <T>(read: T): Promise<T> => {
    const wait = held;
    held = undefined;
    taken?.();
    if (wait) await wait;
    return read;
  };
  return {
    queries,
    fail: (on: boolean) => (failing = on),
    /** Holds the next query's answer; resolves `read` once it has read, and gives the function that releases it. */
    hold(): { read: Promise<void>; release: () => void } {
      let release!: () => void;
      held = new Promise<void>((resolve) => (release = resolve));
      const read = new Promise<void>((resolve) => (taken = resolve));
      return { read, release };
    },
    register(publicKey: string, integratorId = 'i'): IntegratorKeyDoc {
      const doc = { _id: `k-${docs.size}`, integratorId, publicKey, createdAt: new Date(), revokedAt: null };
      docs.set(publicKey, doc);
      return doc;
    },
    revoke(publicKey: string): IntegratorKeyDoc {
      const doc = { ...docs.get(publicKey)!, revokedAt: new Date() };
      docs.set(publicKey, doc);
      return doc;
    },
    source: {
      activeKeys: async () => (ask('all'), await answer([...docs.values()].filter((d) => d.revokedAt === null))),
      keysChangedSince: async (since: Date) => (
        ask(`since ${since.getTime()}`),
        await answer(
          [...docs.values()].filter((d) => d.createdAt >= since || (d.revokedAt !== null && d.revokedAt >= since)),
        )
      ),
    },
  };
}

const make = (db: ReturnType<typeof fakeSource>, opts: KeyCacheOptions = {}) =>
  createKeyCache(db.source, { minGapMs: 10, ...opts });

describe('key cache over the key directory', () => {
  it('serves every known key from memory, through a flood of random keys, with no query per key', async () => {
    const db = fakeSource();
    const known = Array.from({ length: 3 }, () => newKey());
    for (const k of known) db.register(k);
    const cache = make(db);
    for (const k of known) assert.equal((await cache.get(k))?.integratorId, 'i');
    assert.deepEqual(db.queries, ['all'], 'one load, then memory');
    const flood = await Promise.all(Array.from({ length: 1_000 }, (_, i) => cache.get(randomKey(i))));
    assert.ok(flood.every((answer) => answer === null));
    assert.equal(db.queries.length, 2, `1,000 random keys shared one refresh: ${db.queries.join(', ')}`);
    for (const k of known) assert.equal((await cache.get(k))?.integratorId, 'i');
    assert.equal(db.queries.length, 2, 'known keys still from memory');
  });

  it('finds a key registered elsewhere after the load on its first request, in the middle of a flood', async () => {
    const db = fakeSource();
    const cache = make(db);
    assert.equal(await cache.get(randomKey(1)), null);
    const flood = Promise.all(Array.from({ length: 200 }, (_, i) => cache.get(randomKey(i + 10))));
    const theirs = newKey();
    db.register(theirs, 'acme'); // another instance's registration, while this one is busy refusing junk
    assert.equal((await cache.get(theirs))?.integratorId, 'acme');
    assert.ok((await flood).every((answer) => answer === null));
    assert.ok(cache.holds(theirs));
  });

  it('remembers an unknown key for negativeTtlMs, bounded on its own, and refuses it at once with wait: false', async () => {
    const db = fakeSource();
    const cache = make(db, { maxNegativeEntries: 10 });
    await cache.get(newKey()); // the load
    const unknown = Array.from({ length: 20 }, (_, i) => randomKey(i));
    for (const k of unknown) assert.equal(await cache.get(k), null);
    const before = db.queries.length;
    for (const k of unknown.slice(10)) assert.equal(await cache.get(k), null); // the newest 10 are remembered
    assert.equal(db.queries.length, before);
    assert.equal(await cache.get(unknown[0]!), null); // the oldest was evicted: it waits for a refresh again
    assert.equal(db.queries.length, before + 1);
    assert.equal(await cache.get(randomKey(99), { wait: false }), null);
    assert.equal(db.queries.length, before + 1, 'wait: false never asks');
  });

  it('takes revocations from the refresh, and at once when revoked here, even across a reload begun before', async () => {
    const db = fakeSource();
    const [a, b] = [newKey(), newKey()];
    db.register(a);
    db.register(b);
    const cache = make(db, { fullReloadMs: 0 }); // every refresh reloads everything
    assert.ok(await cache.get(a));
    db.revoke(a); // revoked through another instance
    await cache.directory.refresh();
    assert.equal(await cache.get(a), null);
    // Revoked through this instance while a reload that read it as active is under way.
    const { read, release } = db.hold();
    const reload = cache.directory.refresh();
    await read;
    const keyId = (await cache.get(b, { wait: false }))!.keyId;
    cache.changedHere(db.revoke(b));
    assert.equal(cache.stillActive(b, keyId), false, 'a request already past its key check is refused too');
    release();
    await reload;
    assert.equal(cache.holds(b), false);
    assert.equal(await cache.get(b), null);
  });

  it('keeps a key registered here while a reload that read before it was under way', async () => {
    const db = fakeSource();
    const cache = make(db, { fullReloadMs: 0 });
    await cache.directory.refresh();
    const { read, release } = db.hold();
    const reload = cache.directory.refresh();
    await read;
    const k = newKey();
    cache.changedHere(db.register(k, 'acme'));
    release();
    await reload;
    assert.equal((await cache.get(k, { wait: false }))?.integratorId, 'acme', 'served at once, no refresh needed');
  });

  it('a request arriving while a refresh is under way waits for the next one, which finds a key it missed', async () => {
    const db = fakeSource();
    const cache = make(db);
    await cache.directory.refresh();
    const { read, release } = db.hold();
    const inFlight = cache.directory.refresh();
    await read; // this refresh has read the keys: it cannot know the one registered next
    const k = newKey();
    db.register(k, 'acme'); // through another instance
    const answer = cache.get(k);
    release();
    await inFlight;
    assert.equal((await answer)?.integratorId, 'acme');
  });

  it('refuses a request whose key was revoked here while its body was arriving', async () => {
    const db = fakeSource();
    const privateKey = generateP256Key();
    const publicKey = compressedHexOf(privateKey);
    db.register(publicKey, 'acme');
    const keys = make(db);
    const auth = createAuthenticator({ keys, replay: createReplayCache({ windowMs: 121_000 }) });
    const timestamp = String(Math.floor(Date.now() / 1000));
    const request = (target: string) => ({
      pubkey: `0x${publicKey}`,
      timestamp,
      signature: signRequest(privateKey, requestSigningInput(timestamp, 'GET', target)),
      method: 'GET',
      target,
      body: undefined,
    });
    const before = await auth.identify(request('/v1/a'));
    assert.ok(before.ok);
    assert.equal((await auth.verify(before.found, request('/v1/a'))).ok, true);
    const slow = await auth.identify(request('/v1/b')); // headers in, body still arriving
    assert.ok(slow.ok);
    keys.changedHere(db.revoke(publicKey));
    assert.deepEqual(await auth.verify(slow.found, request('/v1/b')), {
      ok: false,
      cause: 'unknown or revoked key (revoked since)',
    });
  });

  it('a key registered here works at once, even after it was refused as unknown', async () => {
    const db = fakeSource();
    const cache = make(db);
    const k = newKey();
    assert.equal(await cache.get(k), null);
    const doc = db.register(k, 'acme');
    cache.changedHere(doc);
    assert.equal((await cache.get(k))?.keyId, doc._id);
  });

  it('reads only the changes between full reloads, from the previous refresh less the overlap', async () => {
    let t = 1_000_000;
    const db = fakeSource();
    const cache = make(db, { now: () => t, overlapMs: 60_000, fullReloadMs: 600_000 });
    await cache.directory.refresh();
    t += 5_000;
    await cache.directory.refresh();
    t += 600_000;
    await cache.directory.refresh();
    assert.deepEqual(db.queries, ['all', `since ${1_000_000 - 60_000}`, 'all']);
  });

  it('does not answer from a directory it could not refresh for maxStaleMs', async () => {
    let t = 0;
    const db = fakeSource();
    const k = newKey();
    db.register(k);
    const cache = make(db, { now: () => t, maxStaleMs: 30_000 });
    assert.ok(await cache.get(k));
    db.fail(true);
    t += 29_000;
    assert.ok(await cache.get(k), 'still fresh enough');
    t += 2_000;
    await assert.rejects(cache.get(k), /database unavailable/);
    db.fail(false);
    assert.ok(await cache.get(k));
  });
});
