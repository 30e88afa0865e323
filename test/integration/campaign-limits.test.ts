// Issue 32 item 4, bounded amplification, on the real stack (dev server, worker, HTTPS receiver): one running
// campaign per subscription and a few per integrator; a delivery re-sent once across campaigns; one hourly budget
// shared by manual retries and campaign re-deliveries; a paused subscription holds campaign re-deliveries.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { eventually } from '../helpers/deliveries.js';
import { startDeliveryStack, type DeliveryStack } from '../helpers/delivery-stack.js';
import { registerIntegrator, type TestIntegrator } from '../helpers/integrators.js';
import { seedTerminalDeliveries } from '../helpers/seeded-deliveries.js';
import { signedHeaders } from '../helpers/signed.js';
import { rejectsWith } from '../helpers/subscriptions.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const BUDGET = 6;
const STARTS = 6;

describe('bounded amplification', () => {
  let s: DeliveryStack;
  before(async () => {
    s = await startDeliveryStack({
      env: {
        HERALD_RESEND_BUDGET_PER_HOUR: String(BUDGET),
        HERALD_CAMPAIGNS_PER_INTEGRATOR: '2',
        HERALD_CAMPAIGN_STARTS_PER_HOUR: String(STARTS),
      },
    });
  });
  after(async () => s.stop());

  /** A new integrator (its own budget) with a subscription to `path` and `n` failed deliveries from `base` on. */
  const setUp = async (name: string, path: string, n: number, base = Date.now()) => {
    const who = await registerIntegrator(s.app, s.baseUrl, name);
    const subscription = await who.client.createSubscription({
      url: `https://hooks.example.com:${s.receiver.port}${path}`,
    });
    const owner = { id: subscription.id, integratorId: who.integratorId };
    const ids = await seedTerminalDeliveries(s.app.store, owner, n, 'failed', base);
    return { who, subscription, ids, since: new Date(base).toISOString() };
  };
  const completed = (who: TestIntegrator, id: string) =>
    eventually(async () => {
      const c = await who.client.getCampaign(id);
      return c.state === 'completed' ? c : undefined;
    }, 30_000);

  it('refuses a second campaign of a subscription with a moved since (409 campaign_running), and a third of the integrator', async () => {
    const base = Date.now();
    const one = await setUp('carol', '/limits-one', 3, base);
    const first = await one.who.client.recoverDeliveries(one.subscription.id, { since: one.since, ratePerSecond: 0.1 });
    const moved = new Date(base + 1).toISOString();
    await rejectsWith(
      one.who.client.recoverDeliveries(one.subscription.id, { since: moved, ratePerSecond: 100 }),
      409,
      'campaign_running',
      new RegExp(first.id),
    );
    const again = await one.who.client.recoverDeliveries(one.subscription.id, { since: one.since });
    assert.equal(again.id, first.id, 'the same window still answers its campaign');

    const client = one.who.client;
    const other = async (path: string) => {
      const sub = await client.createSubscription({ url: `https://hooks.example.com:${s.receiver.port}${path}` });
      await seedTerminalDeliveries(s.app.store, { id: sub.id, integratorId: one.who.integratorId }, 1, 'failed', base);
      return sub;
    };
    const [second, third] = [await other('/limits-two'), await other('/limits-three')];
    const running = await client.recoverDeliveries(second.id, { since: one.since, ratePerSecond: 0.1 });
    await rejectsWith(client.recoverDeliveries(third.id, { since: one.since }), 409, 'quota_exceeded', /at most 2/);

    // A cancelled campaign holds its subscription no longer: the moved window may start now.
    await client.controlCampaign(first.id, 'cancel');
    const next = await client.recoverDeliveries(one.subscription.id, { since: moved, ratePerSecond: 100 });
    assert.notEqual(next.id, first.id);
    for (const id of [running.id, next.id]) await client.controlCampaign(id, 'cancel');
  });

  it('starts one of five campaigns requested at once for one subscription; the others get 409', async () => {
    const base = Date.now();
    const { who, subscription } = await setUp('gina', '/limits-race', 1, base);
    const windows = [0, 1, 2, 3, 4].map((i) => new Date(base - i).toISOString());
    const answers = await Promise.allSettled(
      windows.map((since) => who.client.recoverDeliveries(subscription.id, { since, ratePerSecond: 0.1 })),
    );
    const started = answers.filter((a) => a.status === 'fulfilled');
    assert.equal(started.length, 1, JSON.stringify(answers.map((a) => a.status)));
    for (const a of answers)
      if (a.status === 'rejected') await rejectsWith(Promise.reject(a.reason), 409, 'campaign_running');
    await who.client.controlCampaign(started[0]!.value.id, 'cancel');
  });

  it('re-sends a delivery once across campaigns: a later window over the same deliveries skips them', async () => {
    const { who, subscription, ids, since } = await setUp('dave', '/limits-once', 3);
    const first = await who.client.recoverDeliveries(subscription.id, { since, ratePerSecond: 10 });
    assert.equal((await completed(who, first.id)).succeeded, 3);
    // Failed again (an outage came back): the next campaign over an overlapping window must not re-send them.
    await s.app.store.deliveries.collection.updateMany({ _id: { $in: ids } }, { $set: { status: 'failed' } });
    const moved = new Date(Date.parse(since) + 1).toISOString();
    const second = await who.client.recoverDeliveries(subscription.id, { since: moved, ratePerSecond: 10 });
    const ended = await completed(who, second.id);
    assert.deepEqual([ended.total, ended.skipped, ended.succeeded], [2, 2, 0]);
    assert.equal(s.requestsTo('/limits-once').length, 3, 'each delivery reached the receiver once');
  });

  it('shares one hourly budget between manual retries and campaigns: the next retry gets 429, nothing more is sent', async () => {
    const { who, subscription, ids, since } = await setUp('erin', '/limits-budget', BUDGET + 2);
    for (const id of ids.slice(0, 2)) await who.client.retryDelivery(id);
    await eventually(() => (s.requestsTo('/limits-budget').length === 2 ? true : undefined), 10_000);
    for (const id of ids.slice(0, 2))
      await eventually(async () => ((await who.client.getDelivery(id)).status === 'succeeded' ? true : undefined));
    // Six failed deliveries left, four units of the budget: the campaign sends four and then waits.
    const campaign = await who.client.recoverDeliveries(subscription.id, { since, ratePerSecond: 10 });
    await eventually(() => (s.requestsTo('/limits-budget').length === BUDGET ? true : undefined), 15_000);

    const target = `/v1/webhooks/deliveries/${ids.at(-1)!}/retry`;
    const refused = await s.app.inject({ method: 'POST', url: target, headers: signedHeaders(who, 'POST', target) });
    assert.equal(refused.statusCode, 429);
    assert.deepEqual(refused.json(), {
      error: 'quota_exceeded',
      status: 429,
      message: `at most ${BUDGET} manual retries and campaign re-deliveries per integrator per hour`,
    });
    const wait = Number(refused.headers['retry-after']);
    assert.ok(Number.isInteger(wait) && wait >= 1 && wait <= 3600, String(refused.headers['retry-after']));

    await sleep(4000);
    assert.equal(s.requestsTo('/limits-budget').length, BUDGET, 'nothing beyond the budget reached the receiver');
    assert.equal((await who.client.getCampaign(campaign.id)).state, 'running', 'the campaign waits for the next hour');
    await who.client.controlCampaign(campaign.id, 'cancel');
  });

  it('holds campaign re-deliveries while the subscription is paused; a manual retry still goes', async () => {
    const { who, subscription, ids, since } = await setUp('frank', '/limits-paused', 3);
    await who.client.pauseSubscription(subscription.id);
    const campaign = await who.client.recoverDeliveries(subscription.id, { since, ratePerSecond: 10 });
    await sleep(3000);
    assert.equal(s.requestsTo('/limits-paused').length, 0, 'nothing re-delivered while paused');
    await who.client.retryDelivery(ids[0]!);
    await eventually(() => (s.requestsTo('/limits-paused').length === 1 ? true : undefined), 10_000);

    await who.client.resumeSubscription(subscription.id);
    const ended = await completed(who, campaign.id);
    assert.equal(ended.total, 3);
    const received = s.requestsTo('/limits-paused').map((r) => String(r.headers['x-service-webhook-delivery-id']));
    assert.deepEqual([...received].sort(), [...ids].sort(), 'each once, the retried one not again');
  });

  it('counts campaign starts per integrator and hour, empty windows too; the same window again is no start', async () => {
    // One failed delivery, ten days back: every window below (the last hour) is empty.
    const { who, subscription } = await setUp('dora', '/limits-starts', 1, Date.now() - 10 * 86_400_000);
    const hourAgo = Date.now() - 3_600_000;
    const windowAt = (i: number) => new Date(hourAgo + i * 1000).toISOString();
    const first = await who.client.recoverDeliveries(subscription.id, { since: windowAt(0), until: windowAt(1) });
    await completed(who, first.id); // an empty window: done at once, its slot free again
    for (let i = 1; i < STARTS; i++) {
      const c = await who.client.recoverDeliveries(subscription.id, {
        since: windowAt(2 * i),
        until: windowAt(2 * i + 1),
      });
      await completed(who, c.id);
    }
    await rejectsWith(
      who.client.recoverDeliveries(subscription.id, { since: windowAt(100), until: windowAt(101) }),
      429,
      'quota_exceeded',
      new RegExp(`at most ${STARTS} campaign starts per integrator per hour`),
    );
    const again = await who.client.recoverDeliveries(subscription.id, { since: windowAt(0), until: windowAt(1) });
    assert.equal(again.id, first.id, 'the campaign its window names, answered within the quota');
  });
});
