// Issue 14: the ingest's admission control (src/api/ingest-gate.ts) on the real app, the real MongoDB-wire server
// and Temporal. With one ingest at a time and one waiting, a third is shed with 503 `overloaded` + Retry-After in the
// error shape, with nothing written (no event, no delivery workflow); the admitted ones complete; a producer that
// retries is stored; a request whose client left while it waited does no work.
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { FastifyInstance } from 'fastify';
import { deliveryIdOf } from '../../src/store/derived-ids.js';
import type { EventsRepo } from '../../src/store/events-repo.js';
import { deliveryWorkflowId } from '../../workflows/messages.js';
import { buildTestApp, closeTestApp } from '../helpers/app.js';
import { seedSubscription } from '../helpers/deliveries.js';
import { postEvent, sampleEvent } from '../helpers/events.js';
import { adminHeaders, listen, registerIntegrator, type TestIntegrator } from '../helpers/integrators.js';

describe('ingest load shedding: 503 overloaded when too many ingests are in flight', { timeout: 60_000 }, () => {
  let app: FastifyInstance;
  let baseUrl: string;
  let acme: TestIntegrator;
  let subscriptionId: string;
  const slow = new Map<string, number>(); // event id → ms its insert is held

  before(async () => {
    // A long wait bound: on a loaded machine the held ingest may take longer than the default 2 s.
    ({ app } = await buildTestApp({
      HERALD_INGEST_CONCURRENCY: '1',
      HERALD_INGEST_QUEUE: '1',
      HERALD_INGEST_WAIT_MS: '20000',
    }));
    baseUrl = await listen(app);
    acme = await registerIntegrator(app, baseUrl);
    const seeded = await seedSubscription(app.store, app.vault, {
      integratorId: acme.integratorId,
      url: 'https://hooks.example.com/h',
    });
    subscriptionId = seeded.subscription._id;
    const events = app.store.events as { insertOnce: EventsRepo['insertOnce'] };
    const insertOnce = events.insertOnce.bind(events);
    events.insertOnce = async (doc, ...rest) => {
      const hold = slow.get(doc._id);
      if (hold !== undefined) await sleep(hold);
      return await insertOnce(doc, ...rest);
    };
  });
  after(async () => closeTestApp(app));

  const stored = async (id: string) => (await app.store.events.findById(id)) !== null;
  const workflowStarted = async (eventId: string) => {
    const handle = app.temporal.client.workflow.getHandle(deliveryWorkflowId(deliveryIdOf(eventId, subscriptionId)));
    return await handle.describe().then(
      () => true,
      () => false,
    );
  };

  it('sheds the ingest past the queue with 503 + Retry-After, writes nothing for it, and serves the others', async () => {
    const [running, waiting, shed] = [0, 1, 2].map(() => sampleEvent(acme.integratorId));
    slow.set(running!.id as string, 1_500);
    const first = postEvent(app, running);
    await sleep(200); // holding the one slot
    const second = postEvent(app, waiting);
    await sleep(100); // in the queue
    const t = Date.now();
    const refused = await postEvent(app, shed);
    assert.ok(Date.now() - t < 1_000, 'shed at once, not after waiting');
    assert.equal(refused.statusCode, 503);
    assert.equal(refused.headers['retry-after'], '1');
    assert.deepEqual(refused.json(), { error: 'overloaded', status: 503 });

    assert.equal((await first).statusCode, 201);
    assert.equal((await second).statusCode, 201);
    assert.equal(await stored(shed!.id as string), false, 'the shed event is not stored');
    assert.equal(await workflowStarted(shed!.id as string), false, 'and no delivery of it was started');
    assert.equal(await workflowStarted(running!.id as string), true, 'the admitted ones were handed off');

    const retried = await postEvent(app, shed); // the producer retries after Retry-After
    assert.equal(retried.statusCode, 201);
    assert.equal(await stored(shed!.id as string), true);
  });

  it('a request whose client left while it waited does nothing once its turn comes', async () => {
    const [running, abandoned, next] = [0, 1, 2].map(() => sampleEvent(acme.integratorId));
    slow.set(running!.id as string, 1_500);
    const first = postEvent(app, running);
    await sleep(200);
    const gone = new AbortController();
    const request = fetch(`${baseUrl}/internal/v1/events`, {
      method: 'POST',
      headers: { ...adminHeaders, 'content-type': 'application/json' },
      body: JSON.stringify(abandoned),
      signal: gone.signal,
    }).catch((err: unknown) => err);
    await sleep(200); // queued behind the first
    gone.abort();
    assert.equal(((await request) as Error).name, 'AbortError');
    assert.equal((await first).statusCode, 201);
    assert.equal((await postEvent(app, next)).statusCode, 201, 'the slot was handed on');
    assert.equal(await stored(abandoned!.id as string), false, 'the abandoned ingest wrote nothing');
    assert.equal(await workflowStarted(abandoned!.id as string), false);
  });
});
