// Issue 11 item 6: a signed request that changes state, replayed to another API instance over the same database, is
// refused (the shared replay store: one insert by `_id` = digest); expired digests are swept in code (FerretDB has no
// TTL expiry). Issue 33 item 5: a repeated GET is answered, and writes nothing to the shared store.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { FastifyInstance } from 'fastify';
import { buildTestApp, closeTestApp } from '../helpers/app.js';
import { listen, registerIntegrator, type TestIntegrator } from '../helpers/integrators.js';
import { signedHeaders } from '../helpers/signed.js';

/** A test-only route that changes nothing, for every method, behind the same auth as every /v1 route. */
function echoRoute(app: FastifyInstance): void {
  app.route({ method: ['GET', 'POST'], url: '/v1/echo', handler: async () => ({ ok: true }) });
}

describe('replay protection across API instances', () => {
  let a: FastifyInstance;
  let b: FastifyInstance;
  let acme: TestIntegrator;
  before(async () => {
    ({ app: a } = await buildTestApp({}, echoRoute));
    ({ app: b } = await buildTestApp(
      { MONGODB_DB: a.config.MONGODB_DB, HERALD_MASTER_KEY: a.config.HERALD_MASTER_KEY ?? '' },
      echoRoute,
    ));
    acme = await registerIntegrator(a, await listen(a));
  });
  after(async () => {
    await b.close();
    await closeTestApp(a);
  });

  const send = (app: FastifyInstance, url: string, headers: Record<string, string>, payload?: string) =>
    app.inject({ method: payload === undefined ? 'GET' : 'POST', url, headers, payload });

  it('accepts a POST on one instance and refuses the same bytes on the other, both ways', async () => {
    for (const [first, second, n] of [
      [a, b, 1],
      [b, a, 2],
    ] as const) {
      const url = `/v1/echo?n=${n}`;
      const headers = signedHeaders(acme, 'POST', url, '{}');
      assert.equal((await send(first, url, headers, '{}')).statusCode, 200);
      const replayed = await send(second, url, headers, '{}');
      assert.equal(replayed.statusCode, 401);
      assert.deepEqual(replayed.json(), { error: 'unauthorized', status: 401 });
      assert.equal((await send(first, url, headers, '{}')).statusCode, 401, 'the local fast path refuses too');
    }
  });

  it('ten instances-worth of concurrent replays of one POST: exactly one accepted', async () => {
    const url = '/v1/echo?concurrent';
    const headers = signedHeaders(acme, 'POST', url, '{}');
    const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => send(i % 2 ? a : b, url, headers, '{}')));
    assert.deepEqual(answers.map((r) => r.statusCode).sort(), [200, 401, 401, 401, 401, 401, 401, 401, 401, 401]);
  });

  it('answers the same signed GET on both instances, again and again, and records no digest for it', async () => {
    const replays = a.mongo.db.collection('replays');
    const before = await replays.countDocuments({});
    const url = '/v1/credentials/current?polled';
    const headers = signedHeaders(acme, 'GET', url);
    const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => send(i % 2 ? a : b, url, headers)));
    assert.deepEqual(
      answers.map((r) => r.statusCode),
      Array<number>(10).fill(200),
    );
    assert.equal(await replays.countDocuments({}), before, 'a GET writes nothing to the shared replay store');
  });

  it('records concurrent digests in batches (group commit): each answer is its own, duplicates refused', async () => {
    const expiresAt = new Date(Date.now() + 60_000);
    assert.equal(await b.store.expiring.firstUse('batch-seen', expiresAt), true);
    const digests = ['batch-1', 'batch-seen', 'batch-2', 'batch-seen', 'batch-3'];
    const answers = await Promise.all(digests.map((d) => a.store.expiring.firstUse(d, expiresAt)));
    assert.deepEqual(answers, [true, false, true, false, true]);
  });

  it('stores the digest by _id with an expiry just past the window, and the sweep deletes only expired ones', async () => {
    const replays = a.mongo.db.collection<{ _id: string; expiresAt: Date }>('replays');
    const newest = await replays.find({}).sort({ expiresAt: -1 }).limit(1).next();
    assert.ok(newest);
    const inSec = (newest.expiresAt.getTime() - Date.now()) / 1000;
    assert.ok(inSec > 50 && inSec <= 66, `expires in ${inSec} s`);
    await replays.insertOne({ _id: 'old-digest', expiresAt: new Date(Date.now() - 1000) });
    const total = await replays.countDocuments({});
    assert.equal(await a.store.expiring.sweepExpired(), 1);
    assert.equal(await replays.countDocuments({}), total - 1);
    assert.equal(await replays.countDocuments({ _id: 'old-digest' }), 0);
  });

  it('sweeps a backlog of expired digests chunk by chunk, keeping the live ones', async () => {
    const replays = a.mongo.db.collection<{ _id: string; expiresAt: Date }>('replays');
    const past = new Date(Date.now() - 1000);
    await replays.insertMany(Array.from({ length: 250 }, (_, i) => ({ _id: `backlog-${i}`, expiresAt: past })));
    const live = await replays.countDocuments({ expiresAt: { $gte: new Date() } });
    assert.equal(await a.store.expiring.sweepExpired(new Date(), 100), 250);
    assert.equal(await replays.countDocuments({ _id: { $regex: /^backlog-/ } }), 0);
    assert.equal(await replays.countDocuments({}), live);
  });
});
