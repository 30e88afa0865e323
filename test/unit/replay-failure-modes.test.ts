// Issue 33 item 5: replay protection for requests that change state only, and the replay store's failure modes —
// a failed shared write leaves no digest in the local cache, and a write-concern error is not taken as success. Pure
// logic over fakes (the key cache, the shared store, the store's collection); the real store over the real server is
// proven by test/integration/replay-shared.test.ts.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { MongoBulkWriteError, type BulkWriteResult, type Db } from 'mongodb';
import { createAuthenticator, type SharedReplayStore, type SignedRequest } from '../../src/auth/authenticator.js';
import type { KeyCache } from '../../src/auth/key-cache.js';
import { createReplayCache } from '../../src/auth/replay-cache.js';
import { compressedHexOf } from '../../src/crypto/p256.js';
import { requestSigningInput, signRequest } from '../../src/crypto/request-signature.js';
import { createExpiringRepo } from '../../src/store/expiring-repo.js';
import { newKeyPair } from '../helpers/integrators.js';

const key = newKeyPair();
const publicKey = compressedHexOf(key.privateKey);
const keys = {
  get: async () => ({ keyId: 'k', integratorId: 'i', keyObject: key.publicKey }),
  stillActive: () => true,
} as unknown as KeyCache;

function signed(method: string, target: string, body = ''): SignedRequest {
  const timestamp = String(Math.floor(Date.now() / 1000));
  const raw = Buffer.from(body);
  const signature = signRequest(key.privateKey, requestSigningInput(timestamp, method, target, raw));
  return { pubkey: `0x${publicKey}`, timestamp, signature, method, target, body: body ? raw : undefined };
}

/** A shared store that records every call and answers as `answer` says (throwing when it throws). */
function sharedStore(answer: (n: number) => boolean) {
  const calls: string[] = [];
  const store: SharedReplayStore = {
    firstUse: async (digest) => {
      calls.push(digest);
      return answer(calls.length);
    },
  };
  return { store, calls };
}

const authenticator = (shared: SharedReplayStore) =>
  createAuthenticator({ keys, replay: createReplayCache({ windowMs: 121_000 }), sharedReplay: shared }).authenticate;

describe('replay protection: requests that change state only', () => {
  it('answers a repeated GET and never asks the shared store; refuses a repeated POST', async () => {
    const shared = sharedStore(() => true);
    const authenticate = authenticator(shared.store);
    const get = signed('GET', '/v1/query/events?limit=1');
    assert.equal((await authenticate(get)).ok, true);
    assert.equal((await authenticate(get)).ok, true, 'a retried GET is answered');
    assert.equal(shared.calls.length, 0, 'a GET costs no shared write');
    const post = signed('POST', '/v1/webhooks/subscriptions', '{"url":"https://h.example/x"}');
    assert.equal((await authenticate(post)).ok, true);
    assert.deepEqual(await authenticate(post), { ok: false, cause: 'replayed request', verified: true });
    for (const method of ['PUT', 'PATCH', 'DELETE']) {
      const r = signed(method, '/v1/webhooks/subscriptions/abc');
      assert.equal((await authenticate(r)).ok, true);
      assert.equal((await authenticate(r)).ok, false, `a repeated ${method} is refused`);
    }
    assert.equal(shared.calls.length, 4, 'one shared write per accepted state-changing request');
  });

  it('a failed shared write leaves no digest in the local cache: the retry of that request is accepted', async () => {
    const shared = sharedStore((n) => {
      if (n === 1) throw new Error('connection reset');
      return true;
    });
    const authenticate = authenticator(shared.store);
    const post = signed('POST', '/v1/webhooks/subscriptions', '{"url":"https://h.example/y"}');
    await assert.rejects(authenticate(post), /connection reset/);
    assert.equal((await authenticate(post)).ok, true, 'not refused as a replay of a request that never ran');
    assert.equal((await authenticate(post)).ok, false, 'once accepted, a replay again');
  });
});

describe('shared replay store: write-concern errors', () => {
  /** A collection whose insertMany fails as the driver does when the server answers only a writeConcernError. */
  function writeConcernDb(duplicateIndex?: number) {
    const collection = {
      insertMany() {
        const writeErrors =
          duplicateIndex === undefined ? [] : [{ index: duplicateIndex, code: 11000, errmsg: 'duplicate key' }];
        // The driver's WriteConcernError and BulkWriteResult are not exported at run time: what the store reads of them.
        const writeConcernError = { code: 64, message: 'waiting for replication timed out' };
        const result = { getWriteConcernError: () => writeConcernError } as unknown as BulkWriteResult;
        const error =
          writeErrors.length > 0 ? { message: 'duplicate key', code: 11000, writeErrors } : writeConcernError;
        const cause = error as ConstructorParameters<typeof MongoBulkWriteError>[0];
        return Promise.reject(new MongoBulkWriteError(cause, result));
      },
    };
    return { collection: () => collection } as unknown as Db;
  }

  it('does not count a digest as recorded when the insert is not acknowledged by the write concern', async () => {
    const repo = createExpiringRepo(writeConcernDb());
    const expiresAt = new Date(Date.now() + 60_000);
    const answers = await Promise.allSettled([repo.firstUse('a', expiresAt), repo.firstUse('b', expiresAt)]);
    for (const a of answers) {
      assert.equal(a.status, 'rejected');
      assert.ok(a.reason instanceof MongoBulkWriteError, String(a.reason));
    }
  });

  it('still answers a duplicate key as a replay when the batch also has a write-concern error', async () => {
    const repo = createExpiringRepo(writeConcernDb(1));
    const expiresAt = new Date(Date.now() + 60_000);
    const answers = await Promise.allSettled([repo.firstUse('a', expiresAt), repo.firstUse('seen', expiresAt)]);
    assert.equal(answers[0]!.status, 'rejected');
    assert.deepEqual(answers[1], { status: 'fulfilled', value: false });
  });
});
