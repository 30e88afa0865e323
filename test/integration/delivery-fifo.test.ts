// Ordered delivery (docs/deliveries.md, "Ordered delivery") end to end on the time-skipping server: the real fan-out,
// workflow and activity, the real MongoDB-wire server and an HTTPS receiver. The receiver must see each ordered
// subscription's deliveries in ingest order, one at a time, through retries, a whole failed schedule, a resume, a
// cancel, a repeated hand-off, a lost place and a change of mode.
// HERALD_RECORD_HISTORIES=1 npm test -- <this file> records the replay fixture steps-fifo-turn-released (once).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { createActivities } from '../../activities/index.js';
import type { DeliveryPort } from '../../activities/delivery-port.js';
import { createKeyVault } from '../../src/crypto/key-encryption.js';
import { loadMasterKey } from '../../src/crypto/master-key.js';
import { createAutoPause } from '../../src/delivery/auto-pause.js';
import { cancelDelivery } from '../../src/delivery/cancel-delivery.js';
import { createFanOut } from '../../src/delivery/fan-out.js';
import { retryDelivery } from '../../src/delivery/manual-retry.js';
import { fifoSeqReader, releaseSignaller, startRelease } from '../../src/delivery/release-held.js';
import { resumeSubscription } from '../../src/delivery/subscription-pause.js';
import { createWebhookHttpClient } from '../../src/net/http-client.js';
import { callbackUrlPolicyFromConfig } from '../../src/net/policy-from-config.js';
import { deliveryIdOf } from '../../src/store/derived-ids.js';
import type { EventDoc, SubscriptionDoc } from '../../src/store/documents.js';
import { createStore } from '../../src/store/index.js';
import { ensureIndexes } from '../../src/store/indexes.js';
import { createMongo } from '../../src/store/mongo.js';
import { deliveryWorkflowId } from '../../workflows/messages.js';
import { writeHistory } from '../fixtures/histories/history-json.js';
import { eventually, lifecycleEvent, seedSubscription } from '../helpers/deliveries.js';
import { testConfig } from '../helpers/env.js';
import { startHttpsReceiver, type HttpsReceiver } from '../helpers/receiver.js';
import { startTimeSkippingWorker } from '../helpers/time-skipping.js';

Runtime.install({ logger: new DefaultLogger('WARN') });

describe('ordered delivery (time-skipping server, real activities and receiver)', () => {
  const config = testConfig({ HERALD_DNS_STATIC: 'hooks.example.com=127.0.0.1', HERALD_ALLOW_CIDRS: '127.0.0.1/32' });
  const mongo = createMongo(config);
  const store = createStore(mongo.db);
  const vault = createKeyVault(loadMasterKey(config).key);
  const http = createWebhookHttpClient({ policy: callbackUrlPolicyFromConfig(config), userAgent: 'Herald-test' });
  const taskQueue = config.TEMPORAL_TASK_QUEUE;
  /** Per event id: how many of its requests fail (500) before 204 (Infinity: all). */
  const failures = new Map<string, number>();
  /** Requests in flight at the receiver, per path, and the most seen at once. */
  const inFlight = new Map<string, number>();
  const mostInFlight = new Map<string, number>();
  let receiver: HttpsReceiver;
  let env: TestWorkflowEnvironment;
  let stop: (() => Promise<void>) | undefined;
  let fanOut: ReturnType<typeof createFanOut>;
  const temporal = () => ({ store, client: env.client, taskQueue });

  before(async () => {
    await ensureIndexes(mongo.db);
    receiver = await startHttpsReceiver(async (r) => {
      const now = (inFlight.get(r.url) ?? 0) + 1;
      inFlight.set(r.url, now);
      mostInFlight.set(r.url, Math.max(now, mostInFlight.get(r.url) ?? 0));
      await new Promise((resolve) => setTimeout(resolve, 5));
      inFlight.set(r.url, now - 1);
      const id = eventIdOf(r.body);
      const seen = receiver.requests.filter((x) => eventIdOf(x.body) === id).length;
      return { status: seen <= (failures.get(id) ?? 0) ? 500 : 204 };
    });
    ({ env, stop } = await startTimeSkippingWorker(taskQueue, ({ client }) => {
      const delivery = {
        signalRelease: releaseSignaller(client),
        fifoSeqOf: fifoSeqReader(client),
        autoPause: createAutoPause({ store, fanOut: null }),
      } as Partial<DeliveryPort> as DeliveryPort;
      // A place without a slot is skipped at the recheck after the one that noted it (the server skips time, not the
      // activities' clock).
      return createActivities({ store, vault, http, delivery, fifoMissingGraceMs: 0 });
    }));
    fanOut = createFanOut({ store, client: env.client, taskQueue });
  });
  after(async () => {
    await stop?.();
    await receiver.close();
    await http.close();
    await mongo.db.dropDatabase();
    await mongo.client.close();
  });

  const eventIdOf = (body: Buffer): string => (JSON.parse(body.toString('utf8')) as { id: string }).id;

  async function orderedSubscription(path: string): Promise<SubscriptionDoc> {
    const url = `https://hooks.example.com:${receiver.port}${path}`;
    // An integrator of its own: its events go to this subscription alone.
    return (await seedSubscription(store, vault, { integratorId: randomUUID(), url, ordering: 'fifo' })).subscription;
  }

  /**
   * Ingests `count` events one after the other, as the API does (hand-off, then the event stored): their ingest order.
   * `failing`: how many requests fail for the event at each index, set before any is ingested.
   */
  async function ingest(s: SubscriptionDoc, count: number, failing: Record<number, number> = {}): Promise<EventDoc[]> {
    const events = Array.from({ length: count }, () => lifecycleEvent(s.integratorId));
    for (const [i, n] of Object.entries(failing)) failures.set(events[Number(i)]?._id ?? '', n);
    for (const event of events) await store.events.insertOnce(event, undefined, await fanOut.handOff(event));
    return events;
  }

  const resultOf = (event: EventDoc, s: SubscriptionDoc) =>
    env.client.workflow.getHandle(deliveryWorkflowId(deliveryIdOf(event._id, s._id))).result();

  /** One after the other: the time-skipping server's lock goes wrong with several results awaited at once. */
  async function resultsOf(events: EventDoc[], s: SubscriptionDoc): Promise<unknown[]> {
    const results: unknown[] = [];
    for (const event of events) results.push(await resultOf(event, s));
    return results;
  }

  /** The event ids of the requests to `path`, in the order they arrived. */
  const arrivals = (path: string) => receiver.requests.filter((r) => r.url === path).map((r) => eventIdOf(r.body));

  /** Each event's requests come together, the events in ingest order: no request of one after the next one's. */
  function assertInOrder(path: string, events: EventDoc[]): void {
    const rank = new Map(events.map((e, i) => [e._id, i]));
    const ranks = arrivals(path).map((id) => rank.get(id) ?? -1);
    assert.ok(
      ranks.every((r, i) => r >= 0 && (i === 0 || r >= (ranks[i - 1] ?? 0))),
      `out of order: ${ranks.join(' ')}`,
    );
    assert.equal(mostInFlight.get(path), 1, 'one request at a time');
  }

  it('delivers in ingest order, one at a time, each delivery through its retries before the next', async () => {
    const s = await orderedSubscription('/in-order');
    const events = await ingest(s, 8, { 1: 1, 4: 1 });
    const results = await resultsOf(events, s);
    assert.deepEqual(
      results.map((r) => (r as { status: string }).status),
      events.map(() => 'succeeded'),
    );
    assertInOrder('/in-order', events);
    assert.equal(arrivals('/in-order').length, 8 + 1 + 1);
    // The last place waited in its run for its turn (too far behind to wait inside an attempt), then was released.
    const last = env.client.workflow.getHandle(deliveryWorkflowId(deliveryIdOf(events[7]?._id ?? '', s._id)));
    if (process.env.HERALD_RECORD_HISTORIES) await writeHistory('steps-fifo-turn-released', await last.fetchHistory());
    const lane = await store.fifoLanes.lane(s._id);
    assert.deepEqual([lane?.next, lane?.turn], [8, 9], 'every place passed');
    assert.equal(await store.fifoLanes.slots.countDocuments({ subscriptionId: s._id }), 0, 'no slot left');
  });

  it('a delivery that fails its whole schedule pauses the subscription; only it may be retried; resume goes on in order', async () => {
    const s = await orderedSubscription('/exhausted');
    const events = await ingest(s, 4, { 1: Infinity });
    const [first, failing, third, fourth] = events as [EventDoc, EventDoc, EventDoc, EventDoc];
    assert.deepEqual(await resultOf(failing, s), { status: 'failed', attempts: 7 });
    await resultOf(first, s);
    const paused = await store.subscriptions.findById(s._id);
    assert.deepEqual([paused?.status, paused?.pausedReason], ['paused', 'delivery_failed']);
    await eventually(async () =>
      (await store.deliveries.findById(deliveryIdOf(third._id, s._id)))?.held ? true : undefined,
    );
    assert.deepEqual(arrivals('/exhausted'), [first._id, ...Array<string>(7).fill(failing._id)]);

    const later = await store.deliveries.findById(deliveryIdOf(fourth._id, s._id));
    assert.ok(later);
    assert.deepEqual(await retryDelivery(temporal(), later), { ok: false, reason: 'out_of_order' });
    const failed = await store.deliveries.findById(deliveryIdOf(failing._id, s._id));
    assert.ok(failed);
    failures.set(failing._id, 7); // its next request succeeds
    const retried = await retryDelivery(temporal(), failed);
    assert.equal(retried.ok, true);
    assert.deepEqual(await env.client.workflow.getHandle(deliveryWorkflowId(failed._id)).result(), {
      status: 'succeeded',
      attempts: 1,
    });

    const release = (id: string) => startRelease({ client: env.client, taskQueue }, id, 100);
    assert.equal((await resumeSubscription({ store, release }, s.integratorId, s._id)).ok, true);
    await resultsOf([third, fourth], s);
    assertInOrder('/exhausted', events);
    assert.equal(arrivals('/exhausted').length, 1 + 8 + 2);
  });

  it('a cancelled delivery holding the turn passes it; a repeated hand-off keeps its place', async () => {
    const s = await orderedSubscription('/cancel');
    const events = await ingest(s, 3, { 0: Infinity });
    const [head, second, third] = events as [EventDoc, EventDoc, EventDoc];
    await store.events.insertOnce(second, undefined, await fanOut.handOff(second)); // a producer's re-submission
    const stored = await eventually(async () => {
      const d = await store.deliveries.findById(deliveryIdOf(head._id, s._id));
      return d?.attemptCount === 1 ? d : undefined;
    });
    assert.equal((await cancelDelivery(temporal(), stored)).ok, true);
    await resultsOf([second, third], s);
    assert.deepEqual(arrivals('/cancel'), [head._id, second._id, third._id]);
    const dud = await store.fifoLanes.slot(s._id, 4);
    assert.equal(dud, null, 'the repeated place was skipped and dropped');
    assert.equal((await store.fifoLanes.lane(s._id))?.turn, 5);
  });

  it('a place whose hand-off stopped before its slot is skipped by the next waiter’s rechecks', async () => {
    const s = await orderedSubscription('/lost-place');
    await ingest(s, 1);
    await eventually(async () => ((await store.fifoLanes.lane(s._id))?.turn === 2 ? true : undefined));
    await store.fifoLanes.lanes.updateOne({ _id: s._id }, { $inc: { next: 1 } }); // place 2: no slot, no run
    const [late] = (await ingest(s, 1)) as [EventDoc];
    await resultOf(late, s);
    assert.equal(arrivals('/lost-place').length, 2);
    assert.equal((await store.fifoLanes.lane(s._id))?.turn, 4);
  });

  it('a change of mode applies to deliveries ingested after it; those in flight keep their order', async () => {
    const s = await orderedSubscription('/mode');
    const ordered = await ingest(s, 2, { 0: 1 });
    const [head, second] = ordered as [EventDoc, EventDoc];
    await eventually(() => (arrivals('/mode').length > 0 ? true : undefined));
    await store.subscriptions.update(s.integratorId, s._id, { ordering: 'none' });
    const [unordered] = (await ingest(s, 1)) as [EventDoc];
    await resultOf(unordered, s);
    await resultsOf([head, second], s);
    const seen = arrivals('/mode');
    assert.ok(seen.indexOf(unordered._id) < seen.lastIndexOf(head._id), `not held back: ${seen.join(' ')}`);
    assert.ok(seen.lastIndexOf(head._id) < seen.indexOf(second._id), 'the in-flight ones stay in order');
    assert.equal((await store.deliveries.findById(deliveryIdOf(unordered._id, s._id)))?.fifoSeq, undefined);
  });
});
