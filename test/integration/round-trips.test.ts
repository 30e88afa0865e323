// The database round trips of the delivery path, counted through the driver's command monitoring on the API's and
// the worker's own clients (real stack: dev server, worker, MongoDB-wire server, HTTPS receiver), so that they cannot
// creep back: at most HOT_PATH_BUDGET operations per delivery from ingest to the recorded 2xx, and every command a
// delivery, an attempt or a test send issues is an insert or addressed by a bare `_id` equality (the MongoDB-wire
// server evaluates any other filter over the whole collection). A read may also name its documents by
// `{_id: {$in: [≤ 1,000 string ids]}}`, the one other shape the launcher pushes down to the `_id` index (listings read
// a page's rows so, src/store/by-ids.ts); a write may not.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { CommandStartedEvent, Document } from 'mongodb';
import type { FastifyInstance } from 'fastify';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { buildApp } from '../../src/process/app.js';
import { HeraldAdminClient } from '../../src/client/admin-client.js';
import type { PublishEventInput } from '../../src/client/events.js';
import { deliveryIdOf } from '../../src/store/derived-ids.js';
import { defaultPageSizes, journalDue } from '../../src/store/pages/index.js';
import { MAX_IDS_PER_FIND } from '../../src/store/server-limits.js';
import { createWorkerRuntime, type WorkerRuntime } from '../../src/process/worker-runtime.js';
import { deliveryWorkflowId } from '../../workflows/messages.js';
import { testConfig } from '../helpers/env.js';
import { ADMIN_TOKEN, listen, registerIntegrator, type TestIntegrator } from '../helpers/integrators.js';
import { startHttpsReceiver, type HttpsReceiver } from '../helpers/receiver.js';

Runtime.install({ logger: new DefaultLogger('WARN') });

/**
 * Operations per delivery, ingest through the recorded 2xx, one subscription, caches warm. Herald's own are four
 * (match, store the event; read the event, record the attempt), and the listings' page index takes the fifth (the
 * event's and its deliveries' rows, one small update of the integrator's journal). Besides, about once per
 * `journalEvery` journal entries the write reads the journal to see whether it is due to move into the keys' heads:
 * amortised, counted apart and checked exactly against the deterministic trigger (`journalDue`,
 * src/store/pages/journal.ts). The worker's hourly attempt stats are written once a second per subscription and hour
 * whatever the rate of attempts (activities/attempt-stats.ts): counted apart too, per second, not per delivery.
 */
const HOT_PATH_BUDGET = 5;
/** What those operations are, per delivery: a new one is added here (and must fit the budget). */
const HOT_PATH = {
  'api find subscription_index': 1, // match: the integrator's subscription index
  'api insert events': 1, // store the event (after starting its workflow)
  // The listing: one update by `_id` of the integrator's journal (`pages` layout, the embedded server's; moving the
  // journal into heads and sealing pages add amortised commands, docs/events.md): none with the `indexes` layout.
  'api update event_pages': 1,
  'worker find events': 1, // the body to sign and send
  'worker findAndModify deliveries': 1, // the attempt and its effect, creating the delivery
};
/** Collections whose commands must be inserts or bare `_id` lookups (request authentication is not the delivery's). */
const DELIVERY_COLLECTIONS = new Set([
  'events',
  'deliveries',
  'subscriptions',
  'subscription_index',
  'signing_keys',
  'event_pages',
  'attempt_stats',
]);
const OPERATIONS = new Set(['find', 'insert', 'update', 'delete', 'findAndModify', 'aggregate', 'count', 'getMore']);

interface Seen {
  readonly source: 'api' | 'worker';
  readonly name: string;
  readonly collection: string;
  readonly filters: Document[];
}

/** The filters a command selects documents by (none for an insert). */
function filtersOf(name: string, c: Document): Document[] {
  if (name === 'find' || name === 'count') return [(c.filter ?? c.query ?? {}) as Document];
  if (name === 'findAndModify') return [c.query as Document];
  if (name === 'update') return (c.updates as Document[]).map((u) => u.q as Document);
  if (name === 'delete') return (c.deletes as Document[]).map((d) => d.q as Document);
  if (name === 'aggregate') return [((c.pipeline as Document[])[0]?.$match ?? {}) as Document];
  return [];
}

/** The pushed-down `_id` `$in` of a read: exactly `{_id: {$in: […]}}`, at most MAX_IDS_PER_FIND string ids. */
const byIdList = (filter: Document): boolean => {
  const op = filter._id as Document | undefined;
  const ids: unknown = op?.$in;
  return (
    Object.keys(filter).length === 1 &&
    Object.keys(op ?? {}).length === 1 &&
    Array.isArray(ids) &&
    ids.length <= MAX_IDS_PER_FIND &&
    ids.every((id) => typeof id === 'string')
  );
};
const byIdOnly = (name: string, filter: Document): boolean =>
  (Object.keys(filter).length === 1 && typeof filter._id === 'string') || (name === 'find' && byIdList(filter));

describe('database round trips of the delivery path (command monitoring)', () => {
  const config = testConfig({ HERALD_DNS_STATIC: 'hooks.example.com=127.0.0.1', HERALD_ALLOW_CIDRS: '127.0.0.1/32' });
  const seen: Seen[] = [];
  let recording = false;
  let app: FastifyInstance;
  let runtime: WorkerRuntime;
  let running: Promise<void>;
  let receiver: HttpsReceiver;
  let alice: TestIntegrator;
  let admin: HeraldAdminClient;
  let subscriptionId: string;

  const record = (source: Seen['source']) => (e: CommandStartedEvent) => {
    if (!recording || !OPERATIONS.has(e.commandName)) return;
    const collection = String(e.command[e.commandName]);
    seen.push({ source, name: e.commandName, collection, filters: filtersOf(e.commandName, e.command) });
  };

  before(async () => {
    receiver = await startHttpsReceiver(() => ({ status: 204 }));
    app = await buildApp({ config, logger: false, mongoOptions: { monitorCommands: true } });
    app.mongo.client.on('commandStarted', record('api'));
    runtime = await createWorkerRuntime(config, { mongoOptions: { monitorCommands: true } });
    runtime.mongo.client.on('commandStarted', record('worker'));
    running = runtime.run();
    const baseUrl = await listen(app);
    alice = await registerIntegrator(app, baseUrl, 'alice');
    admin = new HeraldAdminClient(baseUrl, ADMIN_TOKEN);
    subscriptionId = (await alice.client.createSubscription({ url: `https://hooks.example.com:${receiver.port}/rt` }))
      .id;
  });
  after(async () => {
    runtime.shutdown();
    await running;
    await receiver.close();
    await app.mongo.db.dropDatabase();
    await app.close();
  });

  /** Publishes one event to alice's subscriptions; resolves with its id. */
  async function publish(): Promise<string> {
    const input: PublishEventInput = {
      id: randomUUID(),
      eventType: 'customer.created',
      occurredAt: new Date().toISOString(),
      livemode: true,
      payloadVersion: 1,
      integratorId: alice.integratorId,
      provider: 'kyc_provider',
      data: { n: 1 },
    };
    await admin.publishEvent(input);
    return input.id;
  }

  async function eventuallyDelivery(id: string, ok: (d: { attemptCount: number }) => boolean) {
    for (let i = 0; i < 100; i++) {
      const d = await alice.client.getDelivery(id).catch(() => null);
      if (d && ok(d)) return d;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`delivery ${id} did not get there`);
  }

  /** Publishes one event and resolves once its delivery's workflow has ended (the 2xx is recorded by then). */
  async function deliverOne(): Promise<string> {
    const id = await publish();
    const handle = app.temporal.client.workflow.getHandle(deliveryWorkflowId(deliveryIdOf(id, subscriptionId)));
    assert.deepEqual(await handle.result(), { status: 'succeeded', attempts: 1 });
    return id;
  }

  function assertShapes(commands: readonly Seen[]): void {
    const wrong = commands
      .filter((x) => DELIVERY_COLLECTIONS.has(x.collection))
      .flatMap((c) =>
        c.filters
          .filter((f) => !byIdOnly(c.name, f))
          .map((f) => `${c.source} ${c.name} ${c.collection} by ${JSON.stringify(f)}`),
      );
    assert.deepEqual([...new Set(wrong)], []);
  }

  it(`costs at most ${HOT_PATH_BUDGET} operations per delivery, each an insert or a bare _id lookup`, async () => {
    await deliverOne(); // warm: the integrator is known, the worker has read the subscription and its key
    const n = 5;
    recording = true;
    const started = Date.now();
    const ids: string[] = [];
    for (let i = 0; i < n; i++) ids.push(await deliverOne());
    recording = false;
    const seconds = (Date.now() - started) / 1000;

    const statsWrites = seen.filter((c) => c.collection === 'attempt_stats');
    assert.ok(
      statsWrites.every((c) => c.source === 'worker' && c.name === 'update'),
      'stats: the worker updates only',
    );
    assert.ok(statsWrites.length <= Math.ceil(seconds) + 1, `${statsWrites.length} stats writes in ${seconds} s`);
    // And they are written: the subscription's hour counts these attempts within about a second.
    for (let i = 0; ; i++) {
      const hours = await app.store.attemptStats.hours(subscriptionId, Date.now() - (Date.now() % 3_600_000), 1);
      if ((hours[0]?.attempts ?? 0) >= n + 1) break;
      assert.ok(i < 50, 'the stats of the attempts were written');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }

    const headChecks = seen.filter((c) => c.source === 'api' && c.name === 'find' && c.collection === 'event_pages');
    const sizes = { sizes: defaultPageSizes };
    const expectedChecks = ids.filter(
      (id) =>
        journalDue(sizes, id, alice.integratorId) ||
        journalDue(sizes, deliveryIdOf(id, subscriptionId), alice.integratorId),
    ).length;
    assert.equal(headChecks.length, expectedChecks, 'journal checks: exactly the events whose turn it was');
    // The key directory's refresh (every 5 s, src/auth/key-directory.ts) is the API's background work, not the
    // delivery's: on a loaded machine the five deliveries can take long enough to see one.
    const fixed = seen.filter(
      (c) => !headChecks.includes(c) && !statsWrites.includes(c) && c.collection !== 'integrator_keys',
    );
    const perDelivery = fixed.length / n;
    const breakdown: Record<string, number> = {};
    for (const c of fixed) {
      const key = `${c.source} ${c.name} ${c.collection}`;
      breakdown[key] = (breakdown[key] ?? 0) + 1 / n;
    }
    assert.ok(perDelivery <= HOT_PATH_BUDGET, `${perDelivery} operations per delivery: ${JSON.stringify(breakdown)}`);
    assert.deepEqual(breakdown, HOT_PATH);
    assertShapes(seen);
    const delivery = await alice.client.getDelivery(deliveryIdOf(ids[0]!, subscriptionId));
    assert.equal(delivery.status, 'succeeded');
    assert.deepEqual(
      delivery.attempts.map((a) => [a.attemptNumber, a.outcome, a.statusCode]),
      [[1, 'succeeded', 204]],
    );
    assert.equal(receiver.requests.length, n + 1, 'each delivered once');
  });

  it('issues only inserts and bare _id lookups for a test send and its attempt', async () => {
    seen.length = 0;
    recording = true;
    const sent = await alice.client.sendTestDelivery(subscriptionId);
    recording = false;
    assert.equal(sent.attempt.outcome, 'succeeded');
    assert.ok(
      seen.some((c) => c.source === 'worker'),
      'the attempt was recorded by the worker',
    );
    assertShapes(seen);
  });

  it('issues only inserts and bare _id lookups for the subscription CRUD, a manual retry and a DELETE', async () => {
    // A delivery left pending (its receiver answers 503), so that the DELETE has one to cancel.
    const failing = await startHttpsReceiver(() => ({ status: 503 }));
    try {
      seen.length = 0;
      recording = true;
      const sub = await alice.client.createSubscription({ url: `https://hooks.example.com:${failing.port}/crud` });
      await alice.client.getSubscription(sub.id);
      await alice.client.listSubscriptionsPage({ limit: 10 });
      await alice.client.updateSubscription(sub.id, { description: 'renamed' });
      const input = await publish();
      const deliveryId = deliveryIdOf(input, sub.id);
      const pending = await eventuallyDelivery(deliveryId, (d) => d.attemptCount >= 1);
      assert.equal(pending.status, 'pending');
      await alice.client.retryDelivery(deliveryId);
      await eventuallyDelivery(deliveryId, (d) => d.attemptCount >= 2);
      await alice.client.deleteSubscription(sub.id);
      recording = false;
      assert.equal((await alice.client.getDelivery(deliveryId)).status, 'cancelled', 'DELETE cancelled it');
      const names = new Set(seen.map((c) => `${c.name} ${c.collection}`));
      for (const n of ['insert subscriptions', 'findAndModify subscriptions', 'findAndModify deliveries'])
        assert.ok(names.has(n), `${n} was issued`);
      const listRead = (collection: string) =>
        seen.some((c) => c.name === 'find' && c.collection === collection && c.filters.some(byIdList));
      assert.ok(
        listRead('subscriptions') && listRead('signing_keys'),
        'the listing read its page and keys by _id lists',
      );
      assertShapes(seen);
    } finally {
      recording = false;
      await failing.close();
    }
  });

  it('fails on any other filter shape (the check is not vacuous)', () => {
    assert.throws(() =>
      assertShapes([{ source: 'api', name: 'find', collection: 'events', filters: [{ _id: 'x', integratorId: 'y' }] }]),
    );
    const find = (collection: string, filter: Document): Seen => ({
      source: 'api',
      name: 'find',
      collection,
      filters: [filter],
    });
    assertShapes([find('deliveries', { _id: { $in: ['x', 'y'] } })]); // a read of a listing's page
    assert.throws(() =>
      assertShapes([{ source: 'api', name: 'update', collection: 'deliveries', filters: [{ _id: { $in: ['x'] } }] }]),
    );
    assert.throws(() => assertShapes([find('deliveries', { _id: { $in: ['x', 3] } })]));
    assert.throws(() => assertShapes([find('deliveries', { _id: { $in: ['x'] }, status: 'pending' })]));
    assert.throws(() => assertShapes([find('deliveries', { _id: { $in: ['x'], $ne: 'y' } })]));
    const tooMany = Array.from({ length: MAX_IDS_PER_FIND + 1 }, (_, n) => `d${n}`);
    assert.throws(() => assertShapes([find('deliveries', { _id: { $in: tooMany } })]));
  });
});
