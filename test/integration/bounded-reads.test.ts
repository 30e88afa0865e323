// Issue 33 item 2: the reads whose cost grew with an integrator's data are bounded. The delivery summary's counts
// stop at HERALD_SUMMARY_COUNT_LIMIT; a subscription shows its newest 10 keys, GET …/keys pages through all of them.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildTestApp, closeTestApp } from '../helpers/app.js';
import { listen, registerIntegrator, type TestIntegrator } from '../helpers/integrators.js';
import { seedTerminalDeliveries } from '../helpers/seeded-deliveries.js';
import { signedHeaders } from '../helpers/signed.js';
import { HOOK_URL, SUBSCRIPTION_DNS } from '../helpers/subscriptions.js';

type KeyPage = { keys: Array<{ keyId: string; status: string }>; nextCursor: string | null };

describe('bounded reads', () => {
  let app: FastifyInstance;
  let acme: TestIntegrator;
  let other: TestIntegrator;
  before(async () => {
    ({ app } = await buildTestApp({
      HERALD_DNS_STATIC: SUBSCRIPTION_DNS,
      HERALD_SUMMARY_COUNT_LIMIT: '2',
      HERALD_KEY_ROTATIONS_PER_HOUR: '100',
    }));
    const baseUrl = await listen(app);
    acme = await registerIntegrator(app, baseUrl, 'acme');
    other = await registerIntegrator(app, baseUrl, 'other');
  });
  after(async () => closeTestApp(app));

  const get = async <T>(who: TestIntegrator, url: string): Promise<{ status: number; body: T }> => {
    const res = await app.inject({ method: 'GET', url, headers: signedHeaders(who, 'GET', url) });
    return { status: res.statusCode, body: res.json<T>() };
  };

  it('counts each status of the delivery summary up to HERALD_SUMMARY_COUNT_LIMIT and says where it stops', async () => {
    const sub = await acme.client.createSubscription({ url: HOOK_URL });
    const owner = { id: sub.id, integratorId: acme.integratorId };
    await seedTerminalDeliveries(app.store, owner, 3, 'failed', Date.now());
    await seedTerminalDeliveries(app.store, owner, 1, 'cancelled', Date.now());
    const summary = await acme.client.deliverySummary(sub.id);
    assert.deepEqual(summary.counts, { pending: 0, succeeded: 0, failed: 2, cancelled: 1 });
    assert.equal(summary.countLimit, 2);
  });

  it('shows a subscription’s newest 10 keys; GET …/keys pages through every one, newest first', async () => {
    const sub = await acme.client.createSubscription({ url: HOOK_URL });
    let latest = sub;
    for (let i = 0; i < 11; i++) latest = await acme.client.rotateSubscriptionKey(sub.id);
    // Rotation order (two rotations may share a millisecond of createdAt).
    const all = (await app.store.subscriptions.findById(sub.id))?.keyIds ?? [];
    assert.equal(all.length, 12);
    assert.equal(await app.store.subscriptions.keys.countDocuments({ subscriptionId: sub.id }), 12);
    const newest = all.slice(-10);
    const ids = (keys: Array<{ keyId: string }> | undefined) => (keys ?? []).map((k) => k.keyId).sort();

    const shown = await acme.client.getSubscription(sub.id);
    assert.deepEqual(ids(shown.keys), [...newest].sort(), 'the newest 10');
    assert.deepEqual(
      shown.keys.filter((k) => k.status === 'active').map((k) => k.keyId),
      [latest.keyId],
    );
    assert.equal(latest.keys.length, 10, 'the rotation answers the same view');
    const listed = (await acme.client.listSubscriptionsPage()).subscriptions.find((s) => s.id === sub.id);
    assert.deepEqual(ids(listed?.keys), [...newest].sort(), 'the listing too');

    const pages: KeyPage[] = [];
    let url: string | null = `/v1/webhooks/subscriptions/${sub.id}/keys?limit=5`;
    while (url) {
      const { status, body }: { status: number; body: KeyPage } = await get<KeyPage>(acme, url);
      assert.equal(status, 200, JSON.stringify(body));
      pages.push(body);
      url = body.nextCursor && `/v1/webhooks/subscriptions/${sub.id}/keys?limit=5&cursor=${body.nextCursor}`;
    }
    assert.deepEqual(
      pages.map((p) => p.keys.length),
      [5, 5, 2],
    );
    const history = pages.flatMap((p) => p.keys);
    assert.deepEqual(
      history.map((k) => k.keyId),
      [...all].reverse(),
      'every key, newest first',
    );
    assert.deepEqual(
      history.map((k) => k.status),
      ['active', ...Array<string>(11).fill('inactive')],
    );

    const followed: string[] = [];
    for await (const key of acme.client.listSubscriptionKeys(sub.id)) followed.push(key.keyId);
    assert.deepEqual(followed, [...all].reverse(), 'HeraldClient follows the pages');

    // Another integrator's request for them: 404, its cursor on another subscription: 400.
    assert.equal((await get(other, `/v1/webhooks/subscriptions/${sub.id}/keys`)).status, 404);
    const first = pages[0]!.nextCursor!;
    const elsewhere = await acme.client.createSubscription({ url: HOOK_URL });
    const moved = await get<{ error: string }>(acme, `/v1/webhooks/subscriptions/${elsewhere.id}/keys?cursor=${first}`);
    assert.equal(moved.status, 400);
    assert.equal(moved.body.error, 'invalid_cursor');
  });
});
