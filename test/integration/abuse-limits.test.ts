// Issue 11 item 5: failed authentication is rate-limited per client address (429 + Retry-After, the spec's error
// shape), and each integrator has quotas on live subscriptions, key rotations and test sends.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { FastifyInstance } from 'fastify';
import { buildTestApp, closeTestApp } from '../helpers/app.js';
import { ADMIN_TOKEN, listen, registerIntegrator, type TestIntegrator } from '../helpers/integrators.js';
import { signedHeaders } from '../helpers/signed.js';
import { HOOK_URL, rejectsWith, SUBSCRIPTION_DNS } from '../helpers/subscriptions.js';

describe('failed authentication, limited per client address', () => {
  let app: FastifyInstance;
  let acme: TestIntegrator;
  before(async () => {
    ({ app } = await buildTestApp({ HERALD_AUTH_FAILURE_LIMIT: '3', HERALD_AUTH_FAILURE_WINDOW_SEC: '60' }));
    acme = await registerIntegrator(app, await listen(app));
  });
  after(async () => closeTestApp(app));

  const get = (remoteAddress: string, headers: Record<string, string> = {}, url = '/v1/credentials/current') =>
    app.inject({ method: 'GET', url, headers, remoteAddress });

  it('answers 429 with Retry-After to bad credentials once an address has failed the limit, serves good ones', async () => {
    const mallory = '198.51.100.7';
    for (let i = 0; i < 3; i++) assert.equal((await get(mallory)).statusCode, 401);
    const blocked = await get(mallory);
    assert.equal(blocked.statusCode, 429);
    assert.deepEqual(Object.keys(blocked.json()).sort(), ['error', 'message', 'status']);
    assert.equal(blocked.json<{ error: string }>().error, 'too_many_auth_failures');
    assert.equal(blocked.json<{ status: number }>().status, 429);
    const wait = Number(blocked.headers['retry-after']);
    assert.ok(Number.isInteger(wait) && wait >= 1 && wait <= 60, String(blocked.headers['retry-after']));
    const good = await get(mallory, signedHeaders(acme, 'GET', '/v1/credentials/current'));
    assert.equal(good.statusCode, 200);
    // Admin routes share the count; the right token is served.
    const url = `/internal/v1/integrators/${acme.integratorId}`;
    assert.equal((await get(mallory, { authorization: 'Bearer not-the-admin-token!' }, url)).statusCode, 429);
    assert.equal((await get(mallory, { authorization: `Bearer ${ADMIN_TOKEN}` }, url)).statusCode, 200);
  });

  it('counts per address: another address is served; wrong admin tokens count too', async () => {
    const alice = '203.0.113.20';
    // A target of its own: the same signed request as the test above within one second would be a replay.
    const target = '/v1/credentials/current?alice';
    assert.equal((await get(alice, signedHeaders(acme, 'GET', target), target)).statusCode, 200);
    const eve = '203.0.113.21';
    const wrong = { authorization: 'Bearer not-the-admin-token!' };
    const url = `/internal/v1/integrators/${acme.integratorId}`;
    for (let i = 0; i < 3; i++) assert.equal((await get(eve, wrong, url)).statusCode, 401);
    assert.equal((await get(eve, wrong, url)).statusCode, 429);
    assert.equal((await get(alice, wrong, url)).statusCode, 401);
  });
});

describe('per-integrator quotas', () => {
  let app: FastifyInstance;
  let acme: TestIntegrator;
  let other: TestIntegrator;
  let baseUrl: string;
  before(async () => {
    ({ app } = await buildTestApp({
      HERALD_DNS_STATIC: SUBSCRIPTION_DNS,
      HERALD_MAX_SUBSCRIPTIONS: '2',
      HERALD_KEY_ROTATIONS_PER_HOUR: '2',
      HERALD_TEST_SENDS_PER_HOUR: '1',
      HERALD_SUBSCRIPTION_CREATES_PER_HOUR: '4',
    }));
    baseUrl = await listen(app);
    acme = await registerIntegrator(app, baseUrl, 'acme');
    other = await registerIntegrator(app, baseUrl, 'other');
  });
  after(async () => closeTestApp(app));

  it('caps live subscriptions (409 quota_exceeded, nothing written); a deleted one frees its place', async () => {
    const first = await acme.client.createSubscription({ url: HOOK_URL });
    await acme.client.createSubscription({ url: HOOK_URL });
    const count = () => app.mongo.db.collection('subscriptions').countDocuments({});
    const before = await count();
    await rejectsWith(acme.client.createSubscription({ url: HOOK_URL }), 409, 'quota_exceeded', /at most 2 live/);
    assert.equal(await count(), before);
    await other.client.createSubscription({ url: HOOK_URL }); // per integrator
    await acme.client.deleteSubscription(first.id);
    await acme.client.createSubscription({ url: HOOK_URL });
  });

  it('limits subscription creates per integrator and hour, deleted ones included (429 quota_exceeded)', async () => {
    const churn = await registerIntegrator(app, baseUrl, 'churn');
    for (let i = 0; i < 4; i++) {
      const made = await churn.client.createSubscription({ url: HOOK_URL });
      await churn.client.deleteSubscription(made.id);
    }
    const count = () => app.mongo.db.collection('subscriptions').countDocuments({ integratorId: churn.integratorId });
    const before = await count();
    await rejectsWith(
      churn.client.createSubscription({ url: HOOK_URL }),
      429,
      'quota_exceeded',
      /at most 4 subscription creates per integrator per hour/,
    );
    assert.equal(await count(), before, 'nothing written');
  });

  it('limits key rotations per integrator and hour (429 quota_exceeded with Retry-After)', async () => {
    const [sub] = (await acme.client.listSubscriptionsPage()).subscriptions;
    assert.ok(sub);
    await acme.client.rotateSubscriptionKey(sub.id);
    await acme.client.rotateSubscriptionKey(sub.id);
    const keys = () => app.mongo.db.collection('signing_keys').countDocuments({ subscriptionId: sub.id });
    const before = await keys();
    // A query of its own: the client made the same request (same second, same target) just before, a replay.
    const target = `/v1/webhooks/subscriptions/${sub.id}/rotate-key?third`;
    const refused = await app.inject({ method: 'POST', url: target, headers: signedHeaders(acme, 'POST', target) });
    assert.equal(refused.statusCode, 429);
    assert.equal(refused.json<{ error: string }>().error, 'quota_exceeded');
    assert.match(
      refused.json<{ message: string }>().message,
      /at most 2 signing-key rotations per integrator per hour/,
    );
    const wait = Number(refused.headers['retry-after']);
    assert.ok(wait >= 1 && wait <= 3600, String(wait));
    assert.equal(await keys(), before, 'no key written');
    const [otherSub] = (await other.client.listSubscriptionsPage()).subscriptions;
    await other.client.rotateSubscriptionKey(otherSub!.id);
  });

  it('limits test sends per integrator and hour, counted in the store every instance shares', async () => {
    const [sub] = (await acme.client.listSubscriptionsPage()).subscriptions;
    // One test send already made this hour (by any instance): the shared window holds it.
    const hour = Math.floor(Date.now() / 3_600_000) * 3_600_000;
    await app.store.expiring.take(`${acme.integratorId}:test_sends:${hour}`, new Date(hour + 3_600_000));
    const events = () => app.mongo.db.collection('events').countDocuments({});
    const before = await events();
    await rejectsWith(acme.client.sendTestDelivery(sub!.id), 429, 'quota_exceeded', /at most 1 test sends/);
    assert.equal(await events(), before, 'no test event stored');
  });
});
