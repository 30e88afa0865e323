// Issue 43 item 1: what one delivery costs in operations, counted end to end on the real stack (dev server, worker,
// HTTPS receiver): the database commands each process sends from the ingest to the recorded success, and the events
// of the delivery's workflow history, start to close (each one work for the Temporal server). Fails when a delivery
// needs more than the counts below: a cut is made by lowering them. Background work (the key directory's refresh,
// gauges, sweeps, a listing head's sealing) only adds commands, so of several deliveries in a row the fewest is the
// delivery's own. Then the same under load: deliveries published together share their commands (group commit,
// src/store/coalesce.ts), so a burst costs far fewer commands per delivery than one delivery alone.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { MongoClient, type CommandStartedEvent } from 'mongodb';
import { deliveryIdOf } from '../../src/store/derived-ids.js';
import { defaultPageSizes, journalDue } from '../../src/store/pages/index.js';
import type { DeliveryDoc } from '../../src/store/documents.js';
import { deliveryWorkflowId } from '../../workflows/messages.js';
import { eventually } from '../helpers/deliveries.js';
import { startDeliveryStack, type DeliveryStack } from '../helpers/delivery-stack.js';

/**
 * Today's counts per delivery (measured; lower them with each cut, never raise them without a reason). The history:
 * started, 3 workflow tasks, the one patch marker with its TemporalChangeVersion upsert, the activity's 3 events, the
 * status upsert and the close (a bare workflow with one activity: 11).
 */
const MAX = { api: 3, worker: 2, historyEvents: 14 } as const;
const DELIVERIES = 8;
/** A burst published at once: its ingests share their event inserts and index reads. */
const BURST = 40;

describe('the operations of one delivery', () => {
  let s: DeliveryStack;
  let watcher: MongoClient;
  const commands: { side: 'api' | 'worker'; name: string; collection: string }[] = [];
  before(async () => {
    // Ingests of one integrator at once raised from 2 to 16, so the burst reaches the API together.
    s = await startDeliveryStack({
      monitorCommands: true,
      // The burst is admitted whole however slow the machine (shedding has tests of its own: events-ingest-gate).
      env: {
        HERALD_INGEST_CONCURRENCY: '16',
        HERALD_INGEST_CONCURRENCY_PER_INTEGRATOR: '16',
        HERALD_INGEST_WAIT_MS: '60000',
      },
    });
    watcher = await new MongoClient(s.workerConfig.MONGODB_URL).connect();
    const record = (side: 'api' | 'worker') => (e: CommandStartedEvent) => {
      const collection = String(e.command[e.commandName] ?? '');
      if (e.commandName !== 'hello' && e.commandName !== 'ping')
        commands.push({ side, name: e.commandName, collection });
    };
    s.app.mongo.client.on('commandStarted', record('api'));
    s.worker?.mongo.client.on('commandStarted', record('worker'));
  });
  after(async () => {
    await watcher.close();
    await s.stop();
  });

  it(`stays within ${MAX.api} commands of the API, ${MAX.worker} of the worker and ${MAX.historyEvents} history events`, async () => {
    const subscription = await s.subscribe('/operations', ['customer.created']);
    await s.publish(); // warm-up: caches, connections, the first workflow task's code
    await eventually(() => (s.requestsTo('/operations').length === 1 ? true : undefined), 15_000, 'warm-up');

    const runs: { api: number; worker: number; historyEvents: number; detail: string }[] = [];
    for (let i = 0; i < DELIVERIES; i++) {
      commands.length = 0;
      const eventId = await s.publish();
      // Watched through a client of the test's own: the API's and the worker's count only their own commands.
      const deliveryId = deliveryIdOf(eventId, subscription.id);
      await eventually(async () => {
        const d = await watcher
          .db(s.workerConfig.MONGODB_DB)
          .collection<DeliveryDoc>('deliveries')
          .findOne({ _id: deliveryId });
        return d?.status === 'succeeded' ? true : undefined;
      }, 15_000);
      const seen = [...commands];
      const handle = s.app.temporal.client.workflow.getHandle(deliveryWorkflowId(deliveryId));
      await handle.result();
      const history = await handle.fetchHistory();
      const count = (side: 'api' | 'worker') => seen.filter((c) => c.side === side).length;
      const detail = seen.map((c) => `${c.side}:${c.name}:${c.collection}`).join(', ');
      runs.push({ api: count('api'), worker: count('worker'), historyEvents: history.events?.length ?? 0, detail });
    }
    const fewest = (k: 'api' | 'worker' | 'historyEvents') => Math.min(...runs.map((r) => r[k]));
    const least = runs.reduce((a, b) => (a.api + a.worker <= b.api + b.worker ? a : b));
    const figures = `api ${fewest('api')}, worker ${fewest('worker')}, history ${fewest('historyEvents')}: ${least.detail}`;
    console.log(`  one delivery: ${figures}`);
    assert.ok(fewest('api') <= MAX.api, figures);
    assert.ok(fewest('worker') <= MAX.worker, figures);
    assert.ok(fewest('historyEvents') <= MAX.historyEvents, figures);
  });

  it(`shares commands in a burst: ${BURST} ingests at once share their event inserts and index reads`, async () => {
    const subscription = await s.subscribe('/burst', ['customer.created']);
    commands.length = 0;
    const eventIds = await Promise.all(Array.from({ length: BURST }, () => s.publish()));
    const deliveries = watcher.db(s.workerConfig.MONGODB_DB).collection<DeliveryDoc>('deliveries');
    await eventually(
      async () => {
        const ids = eventIds.map((e) => deliveryIdOf(e, subscription.id));
        const done = await deliveries.countDocuments({ _id: { $in: ids }, status: 'succeeded' });
        return done === BURST ? true : undefined;
      },
      60_000,
      'the burst delivered',
    );
    const perDelivery = commands.length / BURST;
    const byKind = new Map<string, number>();
    for (const c of commands)
      byKind.set(`${c.side}:${c.name}:${c.collection}`, (byKind.get(`${c.side}:${c.name}:${c.collection}`) ?? 0) + 1);
    const figures = `${commands.length} commands for ${BURST} deliveries (${perDelivery.toFixed(2)} each): ${[...byKind].map(([k, n]) => `${k} ${n}`).join(', ')}`;
    console.log(`  burst: ${figures}`);
    // Together, not each: an ingest reads the index as its request arrives, and on an idle loopback the 40 requests
    // can reach the API far enough apart that no read finds another waiting (a fresh-clone run: 40 reads, 35
    // inserts); the inserts come later, when more ingests have piled up. Without group commit both are 40.
    const inserts = byKind.get('api:insert:events') ?? 0;
    const indexReads = byKind.get('api:find:subscription_index') ?? 0;
    assert.ok(inserts <= BURST && indexReads <= BURST, figures);
    assert.ok(inserts + indexReads < 2 * BURST, figures);
  });
});

// The API's own worker (HERALD_API_WORKER_SLOTS, eager start) reads the event its ingest just stored from memory
// (src/store/recent-events.ts): one delivery is the ingest's commands and the attempt's record, from one process.
describe("the operations of one delivery through the API's own worker", () => {
  let s: DeliveryStack;
  const commands: string[] = [];
  before(async () => {
    s = await startDeliveryStack({
      monitorCommands: true,
      inProcessWorker: false,
      env: { HERALD_API_WORKER_SLOTS: '4' },
    });
    s.app.mongo.client.on('commandStarted', (e: CommandStartedEvent) => {
      // The key directory's refresh (every 5 s, whatever the traffic) is not a delivery's: a delivery slowed past 5 s
      // by a loaded machine would count it.
      const collection = String(e.command[e.commandName] ?? '');
      if (e.commandName !== 'hello' && e.commandName !== 'ping' && collection !== 'integrator_keys')
        commands.push(`${e.commandName}:${collection}`);
    });
  });
  after(async () => await s.stop());

  it('never reads back the event it stored', async () => {
    const subscription = await s.subscribe('/own-worker', ['customer.created']);
    await s.publish();
    await eventually(() => (s.requestsTo('/own-worker').length === 1 ? true : undefined), 15_000, 'warm-up');
    const sizes = { sizes: defaultPageSizes };
    const excess: number[] = [];
    const seen: string[] = [];
    for (let i = 0; i < 4; i++) {
      commands.length = 0;
      const eventId = await s.publish();
      const deliveryId = deliveryIdOf(eventId, subscription.id);
      await s.app.temporal.client.workflow.getHandle(deliveryWorkflowId(deliveryId)).result();
      assert.ok(!commands.includes('find:events'), `the event was read back: ${commands.join(', ')}`);
      // The ingest checks its integrator's journal when it is the turn of one of the rows it filed (journalDue).
      const journalCheck = [eventId, deliveryId].some((id) => journalDue(sizes, id, s.alice.integratorId)) ? 1 : 0;
      excess.push(commands.length - (MAX.api + MAX.worker - 1 + journalCheck));
      seen.push(`${i + 1} (journal check ${journalCheck}): ${commands.join(', ')}`);
    }
    // Background work only adds commands: the delivery with the least excess is the deliveries' own count.
    assert.ok(Math.min(...excess) <= 0, `commands beyond the counts: ${excess.join(', ')}\n${seen.join('\n')}`);
  });
});
