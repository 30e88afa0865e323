// Nothing half-written: an event stored without its listing rows (the process died between the two writes) is
// listed again once the hand-off sweeper runs or the event is re-submitted. The embedded server: the pages layout.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { FastifyInstance } from 'fastify';
import { newEventDoc } from '../../src/domain/event-record.js';
import type { EventPayloadFields } from '../../src/domain/event-payload.js';
import { createSweeper } from '../../src/delivery/sweeper.js';
import { buildTestApp, closeTestApp } from '../helpers/app.js';
import { postEvent, sampleEvent } from '../helpers/events.js';
import { listen, registerIntegrator, type TestIntegrator } from '../helpers/integrators.js';

describe('event listing: a lost listing write is repaired', () => {
  let app: FastifyInstance;
  let acme: TestIntegrator;

  before(async () => {
    ({ app } = await buildTestApp());
    acme = await registerIntegrator(app, await listen(app), 'acme');
    assert.equal(await app.store.events.layout(), 'pages');
  });
  after(async () => closeTestApp(app));

  /** Stores the event as insertOnce does, but "dies" before the listing write. */
  const storeOnly = async (body: Record<string, unknown>, createdAt: Date) => {
    const fields = { ...body, occurredAt: new Date(body.occurredAt as string) } as unknown as EventPayloadFields;
    const doc = newEventDoc(fields, createdAt);
    const { data: _data, ...stored } = doc;
    await app.store.events.collection.insertOne({ ...stored, fanoutAt: null } as typeof doc);
    return doc._id;
  };
  const listed = async (accountId: string) => (await acme.client.listEventsPage({ accountId })).events.map((e) => e.id);

  it('by the sweeper, which files every event it hands off', async () => {
    const body = sampleEvent(acme.integratorId);
    const id = await storeOnly(body, new Date(Date.now() - 60_000));
    assert.deepEqual(await listed(body.accountId as string), [], 'not listed after the crash');
    const sweeper = createSweeper({ store: app.store, fanOut: app.fanOut, graceMs: 30_000 });
    assert.equal(await sweeper.sweepOnce(), 1);
    assert.deepEqual(await listed(body.accountId as string), [id]);
    assert.equal(await sweeper.sweepOnce(), 0, 'handed off: the sweeper leaves it alone now');
  });

  it('by a re-submission of the same event, once, with no duplicate', async () => {
    const body = sampleEvent(acme.integratorId);
    const id = await storeOnly(body, new Date());
    assert.deepEqual(await listed(body.accountId as string), []);
    assert.equal((await postEvent(app, body)).statusCode, 200);
    assert.equal((await postEvent(app, body)).statusCode, 200);
    assert.deepEqual(await listed(body.accountId as string), [id]);
  });
});
