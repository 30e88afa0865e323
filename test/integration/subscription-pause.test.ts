// Delivery control end to end on the real servers (dev Temporal server, MongoDB-wire server, worker, HTTPS
// receiver): pause and resume without loss, Retry-After within bounds, 410 Gone and sustained failure pausing the
// subscription with the operational event webhook.subscription_paused (docs/subscriptions.md, docs/deliveries.md).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { HeraldApiError } from '../../src/client/http.js';
import { deliveryWorkflowId } from '../../workflows/messages.js';
import { searchAttributes } from '../../workflows/search-attributes.js';
import { eventually } from '../helpers/deliveries.js';
import { startDeliveryStack, type DeliveryStack } from '../helpers/delivery-stack.js';
import type { ReceiverResponse } from '../helpers/receiver.js';
import { durationSeconds, eventsOfType } from '../helpers/temporal.js';

const RATE = 10;

describe('pause, resume and receiver signals (dev server, worker, HTTPS receiver)', () => {
  let s: DeliveryStack;
  /** Per path: a whole answer (status and headers), before the stack's per-path status. */
  const custom = new Map<string, ReceiverResponse>();
  before(async () => {
    s = await startDeliveryStack({
      env: {
        HERALD_RESUME_RATE: String(RATE),
        HERALD_HEALTH_PAUSE_AFTER_SECONDS: '1',
        HERALD_HEALTH_PAUSE_MIN_FAILURES: '2',
        HERALD_RETRY_AFTER_MAX_SECONDS: '600',
      },
    });
    s.receiver.respond((r) => custom.get(r.url) ?? { status: s.answers.get(r.url) ?? 204 });
  });
  after(async () => s.stop());

  const idOf = (body: Buffer): string => (JSON.parse(body.toString('utf8')) as { id: string }).id;
  const deliveriesTo = async (subscriptionId: string) =>
    (await s.alice.client.listDeliveriesPage({ subscriptionId, limit: 250 })).deliveries;

  it('pause and resume are idempotent, shown on the subscription, 404 when unknown, 409 when disabled', async () => {
    const sub = await s.subscribe('/toggle');
    const paused = await s.alice.client.pauseSubscription(sub.id);
    assert.equal(paused.status, 'paused');
    assert.equal(paused.pausedReason, 'manual');
    assert.ok(paused.pausedAt);
    assert.deepEqual(await s.alice.client.pauseSubscription(sub.id), paused, 'a second pause changes nothing');
    const listed = await s.alice.client.listSubscriptionsPage({ status: 'paused' });
    assert.deepEqual(
      listed.subscriptions.map((x) => x.id),
      [sub.id],
    );
    await assert.rejects(s.alice.client.updateSubscription(sub.id, { status: 'disabled' }), (err: unknown) => {
      assert.ok(err instanceof HeraldApiError);
      assert.equal(err.status, 409);
      return true;
    });
    const resumed = await s.alice.client.resumeSubscription(sub.id);
    assert.equal(resumed.status, 'enabled');
    assert.equal(resumed.pausedReason, null);
    assert.equal((await s.alice.client.resumeSubscription(sub.id)).status, 'enabled', 'a second resume too');
    await s.alice.client.updateSubscription(sub.id, { status: 'disabled' });
    for (const call of [
      () => s.alice.client.pauseSubscription(sub.id),
      () => s.alice.client.resumeSubscription(sub.id),
    ])
      await assert.rejects(call(), (err: unknown) => err instanceof HeraldApiError && err.status === 409);
    await assert.rejects(
      s.alice.client.pauseSubscription('00000000-0000-4000-8000-000000000000'),
      (err: unknown) => err instanceof HeraldApiError && err.status === 404 && err.body?.error === 'not_found',
    );
  });

  it('50 events while paused: 0 POSTs, 50 held; resume: 50 delivered oldest first within the rate bound', async (t) => {
    const sub = await s.subscribe('/paused', ['customer.updated']);
    await s.alice.client.pauseSubscription(sub.id);
    const published: string[] = [];
    const started = Date.now();
    for (let i = 0; i < 50; i++) published.push(await s.publish('customer.updated'));
    const publishedAt = Date.now();
    const held = await eventually(async () => {
      const found = await deliveriesTo(sub.id);
      return found.length === 50 && found.every((d) => d.held) ? found : undefined;
    }, 60_000);
    assert.ok(
      held.every((d) => d.status === 'pending' && d.attemptCount === 0),
      'no attempt used',
    );
    t.diagnostic(`50 published in ${publishedAt - started} ms, all held ${Date.now() - publishedAt} ms later`);
    assert.ok(
      held.every((d) => d.nextAttemptAt === null),
      'nothing due while held',
    );
    assert.equal(s.requestsTo('/paused').length, 0, 'nothing sent while paused');
    // Visible in the Temporal UI: HeraldDeliveryStatus = held.
    const handle = s.app.temporal.client.workflow.getHandle(deliveryWorkflowId(held[0]!.id));
    await eventually(async () =>
      (await handle.describe()).typedSearchAttributes.get(searchAttributes.deliveryStatus) === 'held'
        ? true
        : undefined,
    );
    await new Promise((r) => setTimeout(r, 500));
    assert.equal(s.requestsTo('/paused').length, 0, 'still nothing sent');

    await s.alice.client.resumeSubscription(sub.id);
    const requests = await eventually(() => {
      const got = s.requestsTo('/paused');
      return got.length >= 50 ? got : undefined;
    }, 60_000);
    assert.deepEqual(
      requests.map((r) => idOf(r.body)),
      published,
      'delivered oldest first, each once',
    );
    const times = requests.map((r) => r.receivedAt);
    const span = times.at(-1)! - times[0]!;
    t.diagnostic(`released at ${RATE}/s: first to 50th POST ${span} ms`);
    // The promise, at most RATE/s in any window: each release goes once the previous attempt is recorded (after its
    // request arrived) and at least 1/RATE s after the previous release, so requests #i..#j span at least
    // (j - i - 1)/RATE s whatever the attempts' latencies (2 ms: the receiver's clock reads whole milliseconds).
    const gapMs = 1000 / RATE;
    for (let i = 0; i < times.length; i++)
      for (let j = i + 1; j < times.length; j++)
        assert.ok(times[j]! - times[i]! >= (j - i - 1) * gapMs - 2, `#${i}..#${j} faster than ${RATE}/s`);
    const done = await eventually(async () => {
      const found = await deliveriesTo(sub.id);
      return found.every((d) => d.status === 'succeeded') ? found : undefined;
    });
    assert.ok(
      done.every((d) => d.attemptCount === 1 && !d.held),
      'each delivered by its first attempt',
    );
    assert.equal(s.requestsTo('/paused').length, 50);
  });

  it('Retry-After on 429 and 503 sets the wait within its bounds; recorded on the attempt and in the timer', async () => {
    const cases = [
      { path: '/ra-429', status: 429, value: '120', wait: 120 },
      { path: '/ra-503-date', status: 503, value: new Date(Date.now() + 300_000).toUTCString(), wait: 300 },
      { path: '/ra-capped', status: 503, value: '99999', wait: 600 },
      { path: '/ra-sooner', status: 429, value: '5', wait: 30 },
    ];
    for (const c of cases) {
      custom.set(c.path, { status: c.status, headers: { 'retry-after': c.value } });
      const sub = await s.subscribe(c.path, ['customer.active']);
      const eventId = await s.publish('customer.active');
      const [delivery] = await eventually(async () => {
        const found = await s.deliveriesOf(eventId, sub.id);
        return found[0]?.attemptCount === 1 ? found : undefined;
      });
      const detail = await s.alice.client.getDelivery(delivery!.id);
      const attempt = detail.attempts[0]!;
      assert.equal(attempt.statusCode, c.status);
      if (c.path !== '/ra-503-date') assert.equal(attempt.retryAfterSeconds, Number(c.value), c.path);
      else assert.ok(Math.abs(attempt.retryAfterSeconds! - 300) <= 2, `${attempt.retryAfterSeconds}`);
      const wait = attempt.retryInSeconds!;
      assert.ok(Math.abs(wait - c.wait) <= (c.path === '/ra-503-date' ? 2 : 0), `${c.path}: waited ${wait}`);
      const due = Date.parse(detail.nextAttemptAt!) - Date.parse(attempt.createdAt);
      assert.equal(due, wait * 1000, `${c.path}: nextAttemptAt`);
      // The workflow's timer is what was left of the rule's wait, counted from the answer, when the activity returned.
      const handle = s.app.temporal.client.workflow.getHandle(deliveryWorkflowId(delivery!.id));
      const timer = await eventually(async () => {
        const events = eventsOfType((await handle.fetchHistory()).events, 'timerStartedEventAttributes');
        return events[0];
      });
      const timerSeconds = durationSeconds(timer.timerStartedEventAttributes?.startToFireTimeout);
      assert.ok(timerSeconds <= wait && timerSeconds > wait - 5, `${c.path}: timer ${timerSeconds} s of ${wait} s`);
      await s.alice.client.deleteSubscription(sub.id);
    }
  });

  it('410 Gone pauses the subscription (endpoint_gone), records webhook.subscription_paused, delivers it', async () => {
    const watcher = await s.subscribe('/watcher-gone', ['webhook.subscription_paused']);
    s.answers.set('/gone', 410);
    const sub = await s.subscribe('/gone', ['transaction.completed']);
    const eventId = await s.publish('transaction.completed');
    const paused = await eventually(async () => {
      const found = await s.alice.client.getSubscription(sub.id);
      return found.status === 'paused' ? found : undefined;
    });
    assert.equal(paused.pausedReason, 'endpoint_gone');
    const [delivery] = await s.deliveriesOf(eventId, sub.id);
    assert.equal(delivery?.status, 'pending', 'the delivery is kept: held at its next attempt');
    const notice = await eventually(() => s.requestsTo('/watcher-gone')[0]);
    const body = JSON.parse(notice.body.toString('utf8')) as { eventType: string; data: Record<string, unknown> };
    assert.equal(body.eventType, 'webhook.subscription_paused');
    assert.deepEqual(
      { subscriptionId: body.data.subscriptionId, reason: body.data.reason },
      { subscriptionId: sub.id, reason: 'endpoint_gone' },
    );
    const listed = await s.alice.client.listEventsPage({ limit: 250 });
    assert.ok(!listed.events.some((e) => e.id === idOf(notice.body)), 'never listed in GET /v1/query/events');
    assert.equal(s.requestsTo('/gone').length, 1);
    await s.alice.client.deleteSubscription(watcher.id);
  });

  it('an endpoint failing for the configured time (and attempts) is paused with its operational event', async () => {
    const watcher = await s.subscribe('/watcher-sick', ['webhook.subscription_paused']);
    s.answers.set('/sick', 500);
    const sub = await s.subscribe('/sick', ['customer.rejected']);
    const eventId = await s.publish('customer.rejected');
    const [first] = await eventually(async () => {
      const found = await s.deliveriesOf(eventId, sub.id);
      return found[0]?.attemptCount === 1 ? found : undefined;
    });
    assert.equal((await s.alice.client.getSubscription(sub.id)).status, 'enabled', 'one failure is not enough');
    await new Promise((r) => setTimeout(r, 1_100)); // HERALD_HEALTH_PAUSE_AFTER_SECONDS=1
    await s.alice.client.retryDelivery(first!.id); // the second failed attempt (HERALD_HEALTH_PAUSE_MIN_FAILURES=2)
    const paused = await eventually(async () => {
      const found = await s.alice.client.getSubscription(sub.id);
      return found.status === 'paused' ? found : undefined;
    });
    assert.equal(paused.pausedReason, 'endpoint_unhealthy');
    const notice = await eventually(() => s.requestsTo('/watcher-sick')[0]);
    const body = JSON.parse(notice.body.toString('utf8')) as { data: Record<string, unknown> };
    assert.equal(body.data.reason, 'endpoint_unhealthy');
    assert.equal(body.data.subscriptionId, sub.id);
    assert.equal(s.requestsTo('/watcher-sick').length, 1, 'one event per pause');
    // The probe is off here (HERALD_HEALTH_PROBE_SECONDS unset): a recovered endpoint is not resumed, nor probed.
    s.answers.set('/sick', 204);
    const before = s.requestsTo('/sick').length;
    await new Promise((r) => setTimeout(r, 2_500));
    assert.equal((await s.alice.client.getSubscription(sub.id)).status, 'paused', 'nothing resumes it');
    assert.equal(s.requestsTo('/sick').length, before, 'no probe');
    await s.alice.client.deleteSubscription(watcher.id);
  });
});
