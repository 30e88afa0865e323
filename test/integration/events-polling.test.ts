// Issue 11 item 7: a client polling GET /v1/query/events?createdAfter= cannot miss an event committed late by a
// concurrent ingest, when it keeps the documented overlap (POLL_OVERLAP_SEC) and the server keeps every event
// visible within MAX_COMMIT_LAG_MS of its createdAt (src/store/commit-lag.ts). A late commit is made real by
// delaying one event's insert after its createdAt was set, on the real app and the real MongoDB-wire server. Issue 14:
// the repair of a late event is one write at most, even when that write is late too, and the event stays visible to
// a poller keeping the overlap.
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { FastifyInstance } from 'fastify';
import { MAX_COMMIT_LAG_MS, POLL_OVERLAP_SEC } from '../../src/store/commit-lag.js';
import type { EventsRepo } from '../../src/store/events-repo.js';
import { buildTestApp, closeTestApp } from '../helpers/app.js';
import { postEvent, sampleEvent } from '../helpers/events.js';
import { listen, registerIntegrator, type TestIntegrator } from '../helpers/integrators.js';

describe('polling createdAfter with concurrent ingests', { timeout: 60_000 }, () => {
  let app: FastifyInstance;
  let acme: TestIntegrator;
  const slow = new Map<string, number>(); // event id → ms its insert is delayed after createdAt was set
  const slowRepair = new Map<string, number>(); // event id → ms its commit-lag repair (an `_id` update) is delayed
  const repairs = new Map<string, number>(); // event id → `_id` updates of it
  const lines: { msg: string; eventId?: string }[] = [];

  before(async () => {
    const logStream = { write: (line: string) => void lines.push(JSON.parse(line) as (typeof lines)[number]) };
    ({ app } = await buildTestApp({ LOG_LEVEL: 'warn' }, undefined, logStream));
    acme = await registerIntegrator(app, await listen(app));
    const events = app.store.events as { insertOnce: EventsRepo['insertOnce'] };
    const insertOnce = events.insertOnce.bind(events);
    events.insertOnce = async (doc, settle, ...rest) => {
      const delay = slow.get(doc._id);
      if (delay !== undefined) await sleep(delay);
      return await insertOnce(doc, settle, ...rest);
    };
    const collection = app.store.events.collection as { updateOne: EventsRepo['collection']['updateOne'] };
    const updateOne = collection.updateOne.bind(collection);
    collection.updateOne = async (filter, ...rest) => {
      const id = String(filter._id);
      repairs.set(id, (repairs.get(id) ?? 0) + 1);
      const delay = slowRepair.get(id);
      if (delay !== undefined) await sleep(delay);
      return await updateOne(filter, ...rest);
    };
  });
  after(async () => closeTestApp(app));

  /** Every event listed with createdAfter (all pages): ids and the newest createdAt. */
  async function poll(createdAfter: Date): Promise<{ ids: Set<string>; newest: Date }> {
    const ids = new Set<string>();
    let newest = createdAfter;
    for await (const e of acme.client.listEvents({ createdAfter })) {
      ids.add(e.id);
      if (new Date(e.createdAt) > newest) newest = new Date(e.createdAt);
    }
    return { ids, newest };
  }

  /** One event whose insert lags `lagMs` behind its createdAt, and one fast event published meanwhile. */
  async function race(lagMs: number, repairLagMs?: number) {
    const late = sampleEvent(acme.integratorId);
    const fast = sampleEvent(acme.integratorId);
    slow.set(late.id as string, lagMs);
    if (repairLagMs !== undefined) slowRepair.set(late.id as string, repairLagMs);
    const start = new Date(Date.now() - 1);
    const lateAnswer = postEvent(app, late);
    await sleep(100);
    assert.equal((await postEvent(app, fast)).statusCode, 201);
    const first = await poll(start); // the poller runs while the late event is not committed yet
    assert.ok(first.ids.has(fast.id as string) && !first.ids.has(late.id as string));
    const stored = (await lateAnswer).json<{ createdAt: string }>();
    return { late: late.id as string, fast: fast.id as string, first, lateCreatedAt: new Date(stored.createdAt) };
  }

  it('a commit within the lag bound: the overlap finds it where polling from the newest createdAt misses it', async () => {
    const r = await race(MAX_COMMIT_LAG_MS / 2);
    // The race is real: the late event sorts before what the poller has already seen.
    assert.ok(r.lateCreatedAt < r.first.newest);
    const naive = await poll(r.first.newest);
    assert.equal(naive.ids.has(r.late), false, 'polling without overlap misses the late event');
    const overlapped = await poll(new Date(r.first.newest.getTime() - POLL_OVERLAP_SEC * 1000));
    assert.ok(overlapped.ids.has(r.late), 'the documented overlap finds it');
    assert.equal(repairs.get(r.late), undefined, 'within the bound: no repair');
  });

  it('a commit later than the bound: the event gets a fresh createdAt, so even the naive poller finds it', async () => {
    const r = await race(MAX_COMMIT_LAG_MS + 500);
    assert.ok(r.lateCreatedAt > r.first.newest, 'createdAt moved past what the poller saw');
    const stored = await app.store.events.findById(r.late);
    assert.equal(stored?.createdAt.toISOString(), r.lateCreatedAt.toISOString(), 'the answer shows the stored value');
    assert.ok((await poll(new Date(r.first.newest.getTime() - POLL_OVERLAP_SEC * 1000))).ids.has(r.late));
    assert.ok((await poll(r.first.newest)).ids.has(r.late));
    assert.equal(repairs.get(r.late), 1, 'one repair');
  });

  it('a late commit whose repair is late too: repaired once, not again, and the overlap still finds it', async () => {
    const late = MAX_COMMIT_LAG_MS + 500;
    const r = await race(late, late);
    assert.equal(repairs.get(r.late), 1, 'one `_id` update, however late it was');
    const about = lines.filter((l) => l.eventId === r.late).map((l) => l.msg);
    assert.deepEqual(about, ['late event commit', 'late event commit repaired late']);
    assert.ok(r.lateCreatedAt > r.first.newest, 'createdAt moved past what the poller saw');
    // A poller that looked before the late commit and its late repair, then again with the overlap, finds it.
    assert.ok((await poll(new Date(r.first.newest.getTime() - POLL_OVERLAP_SEC * 1000))).ids.has(r.late));
  });
});
