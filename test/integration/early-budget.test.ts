// Issue 45 item 2: a request refused by the request budget costs nothing beyond reading it. Over HTTP (app.inject
// does not go through the server), a signed request of an integrator over its budget is answered 429 by the front
// gate (src/api/front-gate.ts) before Fastify makes a request of it: Fastify numbers the requests it makes (request.id,
// req-1, req-2, …), and a public route's ids before and after the refusals are consecutive. What the gate cannot
// decide from memory still reaches Fastify and its hooks answer as before.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/process/app.js';
import { createHeraldMetrics } from '../../src/telemetry/metrics.js';
import { closeTestApp } from '../helpers/app.js';
import { testConfig } from '../helpers/env.js';
import { listen, registerIntegrator, type TestIntegrator } from '../helpers/integrators.js';
import { signedHeaders } from '../helpers/signed.js';

const READ = '/v1/credentials/current';
const LISTING = '/v1/webhooks/subscriptions';

describe('the request budget refuses before Fastify sees the request', () => {
  let app: FastifyInstance;
  let baseUrl: string;
  let drained: TestIntegrator;
  const metrics = createHeraldMetrics();
  /** The number of each request Fastify made and served. */
  const seen: number[] = [];
  before(async () => {
    const config = testConfig({ HERALD_RATE_LIMIT_PER_SECOND: '0.2', HERALD_RATE_LIMIT_BURST: '3' });
    app = await buildApp({ config, logger: false, metrics });
    app.addHook('onRequest', async (request) => {
      seen.push(Number.parseInt(request.id.replace(/^req-/, ''), 36));
    });
    await app.ready();
    baseUrl = await listen(app);
    drained = await registerIntegrator(app, baseUrl, 'drained');
  });
  after(async () => closeTestApp(app));

  const send = async (path: string, headers: Record<string, string>) => {
    const res = await fetch(`${baseUrl}${path}`, { headers });
    return { status: res.status, retryAfter: res.headers.get('retry-after'), body: (await res.json()) as object };
  };
  const get = (path: string) => send(path, signedHeaders(drained, 'GET', path));
  /** The number Fastify gives the next request it makes (a public route's request, served). */
  const nextNumber = async () => {
    assert.equal((await send('/v1/health', {})).status, 200);
    return seen.at(-1)!;
  };

  it('answers 429 rate_limited with Retry-After in the spec error shape, and Fastify never sees the request', async () => {
    const statuses = [(await get(READ)).status, (await get(READ)).status, (await get(READ)).status];
    assert.deepEqual(statuses, [200, 200, 200], 'its burst of 3');
    const before = await nextNumber();
    for (let i = 0; i < 10; i++) {
      const refused = await get(READ);
      assert.equal(refused.status, 429);
      assert.deepEqual(Object.keys(refused.body).sort(), ['error', 'message', 'status']);
      assert.equal((refused.body as { error: string }).error, 'rate_limited');
      assert.ok(Number(refused.retryAfter) >= 1, String(refused.retryAfter));
    }
    assert.equal(await nextNumber(), before + 1, 'Fastify made no request of the 10 refused');
    const text = await metrics.registry!.getSingleMetricAsString('herald_http_request_duration_seconds');
    const counted = text
      .split('\n')
      .find(
        (line) => line.startsWith('herald_http_request_duration_seconds_count') && line.includes('status_code="429"'),
      );
    assert.match(counted ?? '', /route="\/v1\/credentials\/current".* 10$/, 'counted in the request metrics');
  });

  it('refuses a listing at its cost; passes on what it cannot decide from memory', async () => {
    // A listing costs 2: refused too (the bucket holds less than 1).
    const before = await nextNumber();
    assert.equal((await get(LISTING)).status, 429);
    assert.equal(await nextNumber(), before + 1);
    // Headers that are no credential: the hooks answer 401, as they would for any integrator.
    const bad = { ...signedHeaders(drained, 'GET', READ), 'x-signature': 'nope' };
    assert.equal((await send(READ, bad)).status, 401);
    // A timestamp outside the window: 401 too.
    const stale = signedHeaders(drained, 'GET', READ, '', String(Math.floor(Date.now() / 1000) - 600));
    assert.equal((await send(READ, stale)).status, 401);
    assert.equal(await nextNumber(), before + 4, 'both made requests of Fastify');
    // A public route with the same headers is served; another integrator is served.
    assert.equal((await send('/v1/health', signedHeaders(drained, 'GET', '/v1/health'))).status, 200);
    const other = await registerIntegrator(app, baseUrl, 'other');
    assert.equal((await send(READ, signedHeaders(other, 'GET', READ))).status, 200);
  });
});
