// The database round trips of the delivery path, counted through the driver's command monitoring on the API's and
// the worker's own clients (real stack: dev server, worker, MongoDB-wire server, HTTPS receiver), so that they cannot
// creep back: at most HOT_PATH_BUDGET operations per delivery from ingest to the recorded 2xx, and every command a
// delivery, an attempt or a test send issues is an insert or addressed by a bare `_id` equality (the MongoDB-wire
// server evaluates any other filter over the whole collection).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { CommandStartedEvent, Document } from 'mongodb';
import type { FastifyInstance } from 'fastify';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { buildApp } from '../../src/app.js';
import { HeraldAdminClient } from '../../src/client/admin-client.js';
import type { PublishEventInput } from '../../src/client/events.js';
import { deliveryIdOf } from '../../src/store/derived-ids.js';
import { createWorkerRuntime, type WorkerRuntime } from '../../src/worker-runtime.js';
import { deliveryWorkflowId } from '../../workflows/messages.js';
import { testConfig } from '../helpers/env.js';
import { ADMIN_TOKEN, listen, registerIntegrator, type TestIntegrator } from '../helpers/integrators.js';
import { startHttpsReceiver, type HttpsReceiver } from '../helpers/receiver.js';

Runtime.install({ logger: new DefaultLogger('WARN') });

/**
 * Operations per delivery, ingest through the recorded 2xx, one subscription, caches warm. Herald's own are four
 * (match, store the event; read the event, record the attempt); one is left for the listings' page index.
 */
const HOT_PATH_BUDGET = 5;
/** What those operations are, per delivery: a new one is added here (and must fit the budget). */
const HOT_PATH = {
  'api find subscription_index': 1, // match: the integrator's subscription index
  'api insert events': 1, // store the event (after starting its workflow)
  'worker find events': 1, // the body to sign and send
  'worker findAndModify deliveries': 1, // the attempt and its effect, creating the delivery
};
/** Collections whose commands must be inserts or bare `_id` lookups (request authentication is not the delivery's). */
const DELIVERY_COLLECTIONS = new Set(['events', 'deliveries', 'subscriptions', 'subscription_index', 'signing_keys']);
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

const byIdOnly = (filter: Document): boolean => Object.keys(filter).length === 1 && typeof filter._id === 'string';

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

  /** Publishes one event and resolves once its delivery's workflow has ended (the 2xx is recorded by then). */
  async function deliverOne(): Promise<string> {
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
    const handle = app.temporal.client.workflow.getHandle(deliveryWorkflowId(deliveryIdOf(input.id, subscriptionId)));
    assert.deepEqual(await handle.result(), { status: 'succeeded', attempts: 1 });
    return input.id;
  }

  function assertShapes(commands: readonly Seen[]): void {
    for (const c of commands.filter((x) => DELIVERY_COLLECTIONS.has(x.collection))) {
      for (const filter of c.filters) {
        assert.ok(byIdOnly(filter), `${c.source} ${c.name} ${c.collection} by ${JSON.stringify(filter)}`);
      }
    }
  }

  it(`costs at most ${HOT_PATH_BUDGET} operations per delivery, each an insert or a bare _id lookup`, async () => {
    await deliverOne(); // warm: the integrator is known, the worker has read the subscription and its key
    const n = 5;
    recording = true;
    const ids: string[] = [];
    for (let i = 0; i < n; i++) ids.push(await deliverOne());
    recording = false;

    const perDelivery = seen.length / n;
    const breakdown: Record<string, number> = {};
    for (const c of seen) {
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

  it('fails on any other filter shape (the check is not vacuous)', () => {
    assert.throws(() =>
      assertShapes([{ source: 'api', name: 'find', collection: 'events', filters: [{ _id: 'x', integratorId: 'y' }] }]),
    );
    assert.throws(() =>
      assertShapes([{ source: 'api', name: 'find', collection: 'deliveries', filters: [{ _id: { $in: ['x'] } }] }]),
    );
  });
});
