// End to end on the real Temporal dev server: API + worker in this process, MongoDB-wire server, and an HTTPS
// receiver on 127.0.0.1 reached through names of HERALD_DNS_STATIC (loopback allowed by HERALD_ALLOW_CIDRS).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { FastifyInstance } from 'fastify';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { HeraldApiError } from '../../src/client/http.js';
import type { Config } from '../../src/config.js';
import type { DeliveryDoc, EventDoc } from '../../src/store/documents.js';
import { createSweeper } from '../../src/delivery/sweeper.js';
import { createWorkerRuntime, type WorkerRuntime } from '../../src/worker-runtime.js';
import { deliveryWorkflowId } from '../../workflows/messages.js';
import { searchAttributes } from '../../workflows/search-attributes.js';
import { buildTestApp, closeTestApp } from '../helpers/app.js';
import { assertSignedDelivery, eventually, lifecycleEvent, seedSubscription } from '../helpers/deliveries.js';
import { listen, registerIntegrator, type TestIntegrator } from '../helpers/integrators.js';
import { startHttpsReceiver, type HttpsReceiver, type RecordedRequest } from '../helpers/receiver.js';

interface TestResponse {
  event: {
    id: string;
    eventType: string;
    sourceType: string;
    sourceId: string;
    integratorId: string;
    payload: unknown;
  };
  delivery: Delivery & { eventId: string; subscriptionId: string };
  attempt: {
    attemptNumber: number;
    outcome: string;
    statusCode: number | null;
    actor: string;
    latencyMs: number;
    signingKeyId: string;
    signedTimestamp: string;
  };
}

Runtime.install({ logger: new DefaultLogger('WARN') });

interface Delivery {
  id: string;
  status: string;
  attemptCount: number;
  nextAttemptAt: string | null;
  attempts?: { attemptNumber: number; outcome: string; actor: string; statusCode: number | null }[];
}

describe('delivery end to end (dev server, worker, HTTPS receiver)', () => {
  let app: FastifyInstance;
  let config: Config;
  let runtime: WorkerRuntime;
  let running: Promise<void>;
  let receiver: HttpsReceiver;
  let alice: TestIntegrator;
  /** Per path: what the receiver answers (default 204). */
  const answers = new Map<string, number>();

  before(async () => {
    receiver = await startHttpsReceiver((r) => ({ status: answers.get(r.url) ?? 204 }));
    ({ app, config } = await buildTestApp({
      HERALD_DNS_STATIC: 'hooks.example.com=127.0.0.1,rebind.example.com=127.0.0.1',
      HERALD_ALLOW_CIDRS: '127.0.0.1/32',
    }));
    // The worker resolves rebind.example.com elsewhere: a name that re-resolves privately at delivery time.
    const workerConfig: Config = Object.freeze({
      ...config,
      HERALD_DNS_STATIC: { ...config.HERALD_DNS_STATIC, 'rebind.example.com': ['10.0.0.5'] },
    });
    runtime = await createWorkerRuntime(workerConfig);
    running = runtime.run();
    alice = await registerIntegrator(app, await listen(app), 'alice');
  });
  after(async () => {
    runtime.shutdown();
    await running;
    await receiver.close();
    await closeTestApp(app);
  });

  const urlFor = (path: string, host = 'hooks.example.com') => `https://${host}:${receiver.port}${path}`;
  const requestsTo = (path: string): RecordedRequest[] => receiver.requests.filter((r) => r.url === path);
  const subscribe = (path: string, eventTypes: EventDoc['eventType'][] | 'all' = 'all', host?: string) =>
    seedSubscription(app.store, app.vault, {
      integratorId: alice.integratorId,
      url: urlFor(path, host),
      eventTypes: eventTypes as DeliveryDoc['eventType'][] & 'all',
    });
  async function publish(eventType: EventDoc['eventType'] = 'customer.created'): Promise<EventDoc> {
    const event = lifecycleEvent(alice.integratorId, eventType as 'customer.created');
    await app.store.events.insertOnce(event);
    await app.fanOut.handOff(event);
    return event;
  }
  const getDelivery = (id: string) => alice.client.request<Delivery>('GET', `/v1/webhooks/deliveries/${id}`);
  const deliveriesOf = async (eventId: string, subscriptionId?: string) =>
    (
      await alice.client.request<{ deliveries: Delivery[] }>('GET', '/v1/webhooks/deliveries', {
        query: { eventId, subscriptionId },
      })
    ).deliveries;

  it('delivers a published event to both matching subscriptions, signed, and not to the other one', async () => {
    const all = await subscribe('/all');
    const listed = await subscribe('/listed', ['customer.created', 'customer.active'] as never);
    await subscribe('/other', ['transaction.completed'] as never);
    const event = await publish('customer.created');

    const [a, b] = await eventually(() => {
      const got = [requestsTo('/all')[0], requestsTo('/listed')[0]];
      return got.every(Boolean) ? (got as RecordedRequest[]) : undefined;
    });
    assert.equal(assertSignedDelivery(a!, all.publicKey).id, event._id);
    assert.equal(assertSignedDelivery(b!, listed.publicKey).id, event._id);
    assert.equal(a!.body.toString('utf8'), event.body);
    const deliveries = await eventually(async () => {
      const found = await deliveriesOf(event._id);
      return found.every((d) => d.status === 'succeeded') && found.length === 2 ? found : undefined;
    });
    assert.equal(deliveries.length, 2);
    assert.equal(requestsTo('/other').length, 0);
    assert.ok((await app.store.events.findById(event._id))?.fanoutAt, 'hand-off marked complete');
  });

  it('retries by hand at once, keeps the body byte-identical, and re-runs a terminal delivery once', async () => {
    answers.set('/flaky', 500);
    const { subscription } = await subscribe('/flaky');
    const event = await publish();
    const [first] = await eventually(async () => {
      const found = await deliveriesOf(event._id, subscription._id);
      return found[0]?.attemptCount === 1 ? found : undefined;
    });
    assert.equal(first?.status, 'pending');
    assert.ok(first?.nextAttemptAt && Date.parse(first.nextAttemptAt) > Date.now() + 20_000, 'next in ~30 s');

    const started = Date.now();
    const retried = await alice.client.request<Delivery>('POST', `/v1/webhooks/deliveries/${first.id}/retry`);
    assert.equal(retried.id, first.id);
    await eventually(() => (requestsTo('/flaky').length >= 2 ? true : undefined));
    assert.ok(Date.now() - started < 10_000, 'attempted at once, not after the 30 s wait');

    answers.set('/flaky', 204);
    await alice.client.request('POST', `/v1/webhooks/deliveries/${first.id}/retry`);
    const done = await eventually(async () => {
      const d = await getDelivery(first.id);
      return d.status === 'succeeded' ? d : undefined;
    });
    assert.equal(done.attemptCount, 3);
    assert.deepEqual(
      done.attempts?.map((x) => [x.attemptNumber, x.outcome, x.actor]),
      [
        [1, 'http_error', 'system'],
        [2, 'http_error', 'manual'],
        [3, 'succeeded', 'manual'],
      ],
    );

    // A terminal delivery: one more attempt in a new run of the same workflow id.
    const again = await alice.client.request<Delivery>('POST', `/v1/webhooks/deliveries/${first.id}/retry`);
    assert.equal(again.status, 'pending');
    const rerun = await eventually(async () => {
      const d = await getDelivery(first.id);
      return d.status === 'succeeded' && d.attemptCount === 4 ? d : undefined;
    });
    assert.equal(rerun.attempts?.[3]?.actor, 'manual');
    const bodies = requestsTo('/flaky').map((r) => r.body);
    assert.equal(bodies.length, 4);
    for (const body of bodies) assert.ok(body.equals(bodies[0]!), 'byte-identical on every attempt');

    const handle = app.temporal.client.workflow.getHandle(deliveryWorkflowId(first.id));
    const description = await handle.describe();
    assert.equal(description.typedSearchAttributes.get(searchAttributes.deliveryStatus), 'succeeded');
    assert.equal(description.typedSearchAttributes.get(searchAttributes.attemptCount), 4);
  });

  it('blocks a callback name that re-resolves to a private address at delivery time, connecting nowhere', async () => {
    const lonely = await startHttpsReceiver(); // its own port, so its connection count is this test's alone
    try {
      const { subscription } = await seedSubscription(app.store, app.vault, {
        integratorId: alice.integratorId,
        url: `https://rebind.example.com:${lonely.port}/rebind`,
      });
      const event = await publish();
      const [delivery] = await eventually(async () => {
        const found = await deliveriesOf(event._id, subscription._id);
        return found[0]?.attemptCount === 1 ? found : undefined;
      });
      const detail = await getDelivery(delivery!.id);
      assert.equal(detail.attempts?.[0]?.outcome, 'blocked');
      assert.equal(detail.status, 'pending', 'blocked is a failure: it follows the schedule');
      assert.equal(lonely.connections, 0);
    } finally {
      await lonely.close();
    }
  });

  it('sends a signed test delivery and answers §2.5 with the real attempt', async () => {
    const { subscription, publicKey } = await subscribe('/test-endpoint', ['transaction.completed'] as never);
    const res = await alice.client.request<TestResponse>('POST', `/v1/webhooks/subscriptions/${subscription._id}/test`);
    assert.equal(res.event.eventType, 'webhook.test');
    assert.equal(res.event.sourceType, 'subscription');
    assert.equal(res.event.sourceId, subscription._id);
    assert.equal(res.event.integratorId, alice.integratorId);
    assert.equal(res.delivery.eventId, res.event.id);
    assert.equal(res.delivery.subscriptionId, subscription._id);
    assert.equal(res.delivery.status, 'succeeded');
    assert.equal(res.delivery.attemptCount, 1);
    assert.equal(res.attempt.outcome, 'succeeded');
    assert.equal(res.attempt.statusCode, 204);
    assert.equal(res.attempt.actor, 'test');
    assert.equal(res.attempt.attemptNumber, 1);
    assert.ok(Number.isInteger(res.attempt.latencyMs));
    assert.equal(res.attempt.signingKeyId, subscription.activeKeyId);
    const [received] = requestsTo('/test-endpoint');
    assert.ok(received, 'the receiver got it before the answer');
    const verified = assertSignedDelivery(received, publicKey);
    assert.deepEqual(verified, res.event.payload);
    assert.equal(received.headers['x-service-webhook-timestamp'], res.attempt.signedTimestamp);
    // Test events are kept apart from lifecycle events: they never go through the fan-out.
    assert.equal(requestsTo('/all').filter((r) => r.body.includes('webhook.test')).length, 0);
  });

  it('answers a failed test delivery with its attempt; the delivery then follows the schedule', async () => {
    answers.set('/test-fails', 503);
    const { subscription } = await subscribe('/test-fails');
    const res = await alice.client.request<TestResponse>('POST', `/v1/webhooks/subscriptions/${subscription._id}/test`);
    assert.equal(res.attempt.outcome, 'http_error');
    assert.equal(res.attempt.statusCode, 503);
    assert.equal(res.delivery.status, 'pending');
    assert.ok(res.delivery.nextAttemptAt);
  });

  it('answers 404 on the test endpoint for an unknown subscription', async () => {
    await assert.rejects(
      alice.client.request('POST', '/v1/webhooks/subscriptions/00000000-0000-4000-8000-000000000000/test'),
      (err: unknown) =>
        err instanceof HeraldApiError &&
        err.status === 404 &&
        JSON.stringify(err.body) === '{"error":"not_found","status":404}',
    );
  });

  it('lists deliveries newest first with filters and a cursor bound to them', async () => {
    const event = await publish();
    const all = await eventually(async () => {
      const found = await deliveriesOf(event._id);
      return found.length >= 3 ? found : undefined;
    });
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await alice.client.request<{ deliveries: Delivery[]; nextCursor: string | null }>(
        'GET',
        '/v1/webhooks/deliveries',
        { query: { eventId: event._id, limit: 1, cursor } },
      );
      assert.ok(page.deliveries.length <= 1);
      seen.push(...page.deliveries.map((d) => d.id));
      cursor = page.nextCursor ?? undefined;
      if (cursor && seen.length === 1) {
        await assert.rejects(
          alice.client.request('GET', '/v1/webhooks/deliveries', { query: { cursor, limit: 1 } }),
          (err: unknown) => err instanceof HeraldApiError && err.status === 400 && err.body?.error === 'invalid_cursor',
        );
      }
    } while (cursor);
    assert.deepEqual(
      seen,
      all.map((d) => d.id),
    );
    for (const query of [{ status: 'done' }, { eventId: 'nope' }, { limit: 0 }, { color: 'red' }]) {
      await assert.rejects(
        alice.client.request('GET', '/v1/webhooks/deliveries', { query }),
        (err: unknown) => err instanceof HeraldApiError && err.status === 400,
        JSON.stringify(query),
      );
    }
  });

  it('sweeps an event whose hand-off never ran: its deliveries are made once', async () => {
    const { subscription } = await subscribe('/swept', ['customer.rejected'] as never);
    const event = { ...lifecycleEvent(alice.integratorId, 'customer.rejected'), createdAt: new Date() };
    await app.store.events.insertOnce(event); // stored, then "the API died" before the hand-off
    const sweeper = createSweeper({ store: app.store, fanOut: app.fanOut, graceMs: 0 });
    assert.ok((await sweeper.sweepOnce(new Date(Date.now() + 1000))) >= 1);
    await eventually(() => (requestsTo('/swept').length === 1 ? true : undefined));
    assert.equal(await sweeper.sweepOnce(new Date(Date.now() + 1000)), 0, 'marked handed off');
    await app.fanOut.handOff(event); // a late repeat (re-submission) changes nothing
    assert.equal((await deliveriesOf(event._id, subscription._id)).length, 1);
    await new Promise((r) => setTimeout(r, 500));
    assert.equal(requestsTo('/swept').length, 1, 'delivered once');
  });

  it('answers 404 to a retry of an unknown delivery', async () => {
    await assert.rejects(
      alice.client.request('POST', '/v1/webhooks/deliveries/00000000-0000-4000-8000-000000000000/retry'),
      (err: unknown) => err instanceof HeraldApiError && err.status === 404 && err.body?.error === 'not_found',
    );
  });
});
