// Issue 33 item 2: a request budget per integrator. A burst beyond it is answered 429 rate_limited with Retry-After
// in the spec's error shape while another integrator is served; the document declares the 429 on every route.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyInstance, HTTPMethods } from 'fastify';
import { ROUTE_COSTS } from '../../src/api/route-costs.js';
import { buildTestApp, closeTestApp } from '../helpers/app.js';
import { listen, registerIntegrator, type TestIntegrator } from '../helpers/integrators.js';
import { signedHeaders } from '../helpers/signed.js';

const TARGET = '/v1/credentials/current';

describe('a request budget per integrator', () => {
  let app: FastifyInstance;
  let acme: TestIntegrator;
  let other: TestIntegrator;
  before(async () => {
    ({ app } = await buildTestApp({ HERALD_RATE_LIMIT_PER_SECOND: '1', HERALD_RATE_LIMIT_BURST: '5' }));
    const baseUrl = await listen(app);
    acme = await registerIntegrator(app, baseUrl, 'acme');
    other = await registerIntegrator(app, baseUrl, 'other');
  });
  after(async () => closeTestApp(app));

  const get = (who: TestIntegrator) =>
    app.inject({ method: 'GET', url: TARGET, headers: signedHeaders(who, 'GET', TARGET) });

  it('answers a burst beyond the budget 429 with Retry-After; another integrator meanwhile gets 200s', async () => {
    const started = Date.now();
    // Twenty at once from acme, five from the other integrator among them.
    const [burst, others] = await Promise.all([
      Promise.all(Array.from({ length: 20 }, () => get(acme))),
      Promise.all(Array.from({ length: 5 }, () => get(other))),
    ]);
    const elapsedSec = (Date.now() - started) / 1000;
    assert.deepEqual(
      others.map((r) => r.statusCode),
      [200, 200, 200, 200, 200],
    );
    const served = burst.filter((r) => r.statusCode === 200);
    const limited = burst.filter((r) => r.statusCode === 429);
    assert.equal(served.length + limited.length, 20, burst.map((r) => r.statusCode).join());
    // The burst of 5, plus at most one token per second the burst took.
    assert.ok(served.length >= 5 && served.length <= 5 + Math.ceil(elapsedSec), `${served.length} served`);
    for (const r of limited) {
      assert.deepEqual(Object.keys(r.json()).sort(), ['error', 'message', 'status']);
      assert.equal(r.json<{ error: string }>().error, 'rate_limited');
      assert.equal(r.json<{ status: number }>().status, 429);
      assert.match(r.json<{ message: string }>().message, /1 requests per second \(bursts of 5\)/);
      const wait = Number(r.headers['retry-after']);
      assert.ok(Number.isInteger(wait) && wait >= 1 && wait <= 2, String(r.headers['retry-after']));
    }
    // After the wait it asked for, acme is served again.
    await sleep(1100);
    assert.equal((await get(acme)).statusCode, 200);
  });

  it('spends nothing for a request that does not authenticate: nobody can spend another integrator’s budget', async () => {
    const third = await registerIntegrator(app, 'http://127.0.0.1:1', 'third');
    // Its key, someone else's signature: 401, and its budget untouched.
    const signature = signedHeaders(other, 'GET', TARGET)['x-signature']!;
    const forged = { ...signedHeaders(third, 'GET', TARGET), 'x-signature': signature };
    for (let i = 0; i < 10; i++)
      assert.equal((await app.inject({ method: 'GET', url: TARGET, headers: forged })).statusCode, 401);
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await get(third)).statusCode);
    assert.deepEqual(statuses, [200, 200, 200, 200, 200, 429], 'its whole burst, then the limit');
  });

  it('refuses over budget before the signature: a forged request then is a 429, and spends nothing', async () => {
    const drained = await registerIntegrator(app, 'http://127.0.0.1:1', 'drained');
    for (let i = 0; i < 5; i++) assert.equal((await get(drained)).statusCode, 200);
    // Its key, a signature that does not verify: refused from the key alone, without verifying anything.
    const forged = { ...signedHeaders(drained, 'GET', TARGET), 'x-signature': `0x${'30'.repeat(8)}` };
    const refused = await app.inject({ method: 'GET', url: TARGET, headers: forged });
    assert.equal(refused.statusCode, 429);
    assert.equal(refused.json<{ error: string }>().error, 'rate_limited');
  });

  it('leaves no replay digest for a refused POST: the same bytes are served once Retry-After has passed', async () => {
    const poster = await registerIntegrator(app, 'http://127.0.0.1:1', 'poster');
    for (let i = 0; i < 5; i++) assert.equal((await get(poster)).statusCode, 200);
    const target = '/v1/webhooks/subscriptions/8f14e45f-ceea-467f-a0e6-bb6d4d2b0e0a/pause';
    const headers = signedHeaders(poster, 'POST', target, '{}');
    const post = () => app.inject({ method: 'POST', url: target, headers, payload: '{}' });
    const refused = await post();
    assert.equal(refused.statusCode, 429);
    await sleep(Number(refused.headers['retry-after']) * 1000 + 100);
    assert.equal((await post()).statusCode, 404, 'accepted (no such subscription), not a replay');
    await sleep(1_100); // a token for the next copy
    assert.equal((await post()).statusCode, 401, 'and now remembered: the next copy is a replay');
  });

  it('charges a listing 2 and a summary 5 (src/api/route-costs.ts); a read by id 1', async () => {
    const reader = await registerIntegrator(app, 'http://127.0.0.1:1', 'reader');
    const list = '/v1/webhooks/subscriptions';
    const listing = () => app.inject({ method: 'GET', url: list, headers: signedHeaders(reader, 'GET', list) });
    assert.deepEqual([(await listing()).statusCode, (await listing()).statusCode], [200, 200]); // 4 of 5 tokens
    assert.equal((await listing()).statusCode, 429, 'a listing needs 2; 1 is left');
    assert.equal((await get(reader)).statusCode, 200, 'a read by id needs 1');
    for (const route of Object.keys(ROUTE_COSTS)) {
      const [method, url] = route.split(' ') as [HTTPMethods, string];
      assert.ok(app.hasRoute({ method, url }), `${route} is a route`);
    }
  });

  it('declares the 429 with Retry-After on every integrator operation of the document', async () => {
    type Operation = { responses: Record<string, { headers?: Record<string, unknown> }> };
    type Document = { paths: Record<string, Record<string, Operation>> };
    const doc = (await app.inject({ method: 'GET', url: '/openapi.json' })).json<Document>();
    let operations = 0;
    for (const [path, item] of Object.entries(doc.paths)) {
      if (!path.startsWith('/v1/') || path.startsWith('/v1/health')) continue;
      for (const [method, op] of Object.entries(item)) {
        operations++;
        const limited = op.responses['429'];
        assert.ok(limited, `${method.toUpperCase()} ${path} declares 429`);
        assert.ok(limited.headers?.['Retry-After'], `${method.toUpperCase()} ${path}: 429 with Retry-After`);
      }
    }
    assert.ok(operations >= 15, `${operations} integrator operations`);
  });
});
