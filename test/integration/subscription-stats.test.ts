// A subscription's hourly stats (GET …/subscriptions/{id}/stats) and the deliveries listing's event-type and time
// filters, on the real stack: the worker counts each recorded attempt (2xx or not, with its latency), the API answers
// the last hours with the current one last, only to the subscription's integrator.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { HeraldApiError } from '../../src/client/http.js';
import type { SubscriptionStats } from '../../src/client/herald-client.js';
import { eventually } from '../helpers/deliveries.js';
import { startDeliveryStack, type DeliveryStack } from '../helpers/delivery-stack.js';
import { registerIntegrator } from '../helpers/integrators.js';

const HOUR = 3_600_000;

describe('subscription stats and the deliveries filters', () => {
  let s: DeliveryStack;
  before(async () => {
    s = await startDeliveryStack();
  });
  after(async () => s.stop());

  const statsOnce = async (id: string, attempts: number, hours?: number): Promise<SubscriptionStats> =>
    await eventually(async () => {
      const stats = await s.alice.client.subscriptionStats(id, hours);
      return stats.total.attempts >= attempts ? stats : undefined;
    });

  it('counts every recorded attempt in its hour: successes, failures, a test send, and their latency', async () => {
    s.answers.set('/stats-fail', 500);
    s.delays.set('/stats-ok', 60);
    const ok = await s.subscribe('/stats-ok', ['customer.updated']);
    const failing = await s.subscribe('/stats-fail', ['customer.active']);
    for (let n = 0; n < 3; n++) await s.publish('customer.updated');
    await s.publish('customer.active');
    await s.alice.client.sendTestDelivery(ok.id);

    const asked = Date.now();
    const good = await statsOnce(ok.id, 4);
    const answered = Date.now();
    assert.equal(good.hours.length, 24);
    const current = (t: number) => t - (t % HOUR);
    assert.ok([current(asked), current(answered)].includes(Date.parse(good.hours[23]!.hour)), 'the current hour last');
    assert.equal(Date.parse(good.from), Date.parse(good.hours[0]!.hour));
    assert.equal(Date.parse(good.to), Date.parse(good.hours[23]!.hour) + HOUR);
    // The attempts are in the current hour (or the one before, when the test runs across an hour's turn).
    const total = good.total;
    assert.deepEqual([total.attempts, total.succeeded, total.failed, total.successRate], [4, 4, 0, 1]);
    assert.equal(
      good.hours.slice(22).reduce((n, h) => n + h.attempts, 0),
      4,
    );
    assert.ok(total.latencyMs, 'latency of the requests made');
    assert.ok(total.latencyMs.max >= 60, `the receiver held each request 60 ms (max ${total.latencyMs.max})`);
    assert.ok(total.latencyMs.avg >= 60 && total.latencyMs.avg <= total.latencyMs.max);
    assert.ok(total.latencyMs.p95 >= total.latencyMs.p50 && total.latencyMs.p95 <= total.latencyMs.max);
    for (const h of good.hours.slice(0, 22))
      assert.deepEqual([h.attempts, h.successRate, h.latencyMs], [0, null, null]);

    const bad = await statsOnce(failing.id, 1);
    assert.deepEqual([bad.total.attempts, bad.total.succeeded, bad.total.failed, bad.total.successRate], [1, 0, 1, 0]);
    assert.equal((await s.alice.client.subscriptionStats(ok.id, 1)).hours.length, 1, 'hours=1: the current hour');
  });

  it('counts an hour whose attempts made no request (blocked): attempts, no latency', async () => {
    const sub = await s.subscribe('/stats-blocked');
    const now = Date.now();
    await s.app.store.attemptStats.add([
      {
        integratorId: s.alice.integratorId,
        subscriptionId: sub.id,
        hour: now - (now % HOUR) - HOUR,
        attempts: 3,
        succeeded: 0,
        latencySumMs: 0,
        latencyMaxMs: 0,
        l: {},
      },
    ]);
    const stats = await s.alice.client.subscriptionStats(sub.id);
    const blocked = stats.hours.find((h) => h.attempts > 0);
    assert.deepEqual(blocked && [blocked.attempts, blocked.failed, blocked.successRate, blocked.latencyMs], [
      3,
      3,
      0,
      null,
    ]);
    assert.equal(stats.total.latencyMs, null);
  });

  it('answers 404 for another integrator and 400 for hours out of range', async () => {
    const sub = await s.subscribe('/stats-owner');
    const bob = await registerIntegrator(s.app, s.baseUrl, 'bob');
    await assert.rejects(bob.client.subscriptionStats(sub.id), (err: unknown) => {
      assert.ok(err instanceof HeraldApiError);
      assert.equal(err.status, 404);
      return true;
    });
    for (const hours of [0, 169])
      await assert.rejects(s.alice.client.subscriptionStats(sub.id, hours), (err: unknown) => {
        assert.ok(err instanceof HeraldApiError);
        assert.equal(err.status, 400);
        assert.match(String(err.body?.message), /hours/);
        return true;
      });
  });

  it('filters deliveries by event type and by creation time (exclusive bounds)', async () => {
    const sub = await s.subscribe('/filters');
    const ids: string[] = [];
    for (const type of ['customer.created', 'customer.rejected', 'customer.created'] as const) {
      ids.push(await s.publish(type));
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    const all = await eventually(async () => {
      const page = await s.alice.client.listDeliveriesPage({ subscriptionId: sub.id });
      return page.deliveries.length === 3 ? page.deliveries : undefined;
    });
    const [newest, middle, oldest] = all;
    assert.deepEqual(
      [oldest, middle, newest].map((d) => d?.eventId),
      ids,
    );
    const list = async (f: Record<string, string>) =>
      (await s.alice.client.listDeliveriesPage({ subscriptionId: sub.id, ...f })).deliveries.map((d) => d.eventId);
    assert.deepEqual(await list({ eventType: 'customer.rejected' }), [ids[1]]);
    assert.deepEqual(await list({ eventType: 'customer.created' }), [ids[2], ids[0]]);
    assert.deepEqual(await list({ createdAfter: middle!.createdAt }), [ids[2]]);
    assert.deepEqual(await list({ createdBefore: middle!.createdAt }), [ids[0]]);
    assert.deepEqual(await list({ createdAfter: oldest!.createdAt, createdBefore: newest!.createdAt }), [ids[1]]);
    await assert.rejects(list({ eventType: 'customer.nope' }), (err: unknown) => {
      assert.ok(err instanceof HeraldApiError);
      assert.equal(err.status, 400);
      return true;
    });
  });
});
