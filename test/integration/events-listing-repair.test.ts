// Nothing half-written: an event stored without its listing rows (the process died between the two writes) is
// listed again once the event is re-submitted (the producer got no 2xx). The embedded server: the pages layout.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { FastifyInstance } from 'fastify';
import { newEventDoc } from '../../src/domain/event-record.js';
import type { EventPayloadFields } from '../../src/domain/event-payload.js';
import { jsonTextOf } from '../../src/domain/json-text.js';
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
    const occurredAt = new Date(body.occurredAt as string);
    const fields = { ...body, occurredAt, data: jsonTextOf(body.data) } as unknown as EventPayloadFields;
    const doc = newEventDoc(fields, createdAt);
    await app.store.events.collection.insertOne(doc);
    return doc._id;
  };
  const listed = async (accountId: string) => (await acme.client.listEventsPage({ accountId })).events.map((e) => e.id);

  it('by a re-submission of the same event, once, with no duplicate', async () => {
    const body = sampleEvent(acme.integratorId);
    const id = await storeOnly(body, new Date());
    assert.deepEqual(await listed(body.accountId as string), []);
    assert.equal((await postEvent(app, body)).statusCode, 200);
    assert.equal((await postEvent(app, body)).statusCode, 200);
    assert.deepEqual(await listed(body.accountId as string), [id]);
  });
});
