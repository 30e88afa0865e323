// GET /v1/query/events/{event_id} (an extension, used by the portal's event page): the item exactly as the listing
// gives it, the producer's data byte for byte; another integrator's, Herald's own and unknown ids answer 404.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { heraldEventDoc } from '../../src/domain/event-record.js';
import { SUBSCRIPTION_PAUSED_TYPE } from '../../src/domain/event-types.js';
import { jsonTextOf } from '../../src/domain/json-text.js';
import { buildTestApp, closeTestApp } from '../helpers/app.js';
import { adminHeaders, registerIntegrator, type TestIntegrator } from '../helpers/integrators.js';
import { signedHeaders } from '../helpers/signed.js';

describe('GET /v1/query/events/{event_id}', () => {
  let app: FastifyInstance;
  let acme: TestIntegrator;
  let other: TestIntegrator;
  before(async () => {
    ({ app } = await buildTestApp());
    acme = await registerIntegrator(app, 'http://127.0.0.1:1', 'acme');
    other = await registerIntegrator(app, 'http://127.0.0.1:1', 'other');
  });
  after(async () => closeTestApp(app));

  const get = (who: TestIntegrator, url: string) =>
    app.inject({ method: 'GET', url, headers: signedHeaders(who, 'GET', url) });
  const publish = async (integratorId: string, data: string) => {
    const id = randomUUID();
    const body =
      `{"id":"${id}","eventType":"customer.created","occurredAt":"2026-11-28T10:00:00Z","livemode":true,` +
      `"payloadVersion":1,"integratorId":"${integratorId}","provider":"kyc_provider","data":${data}}`;
    const res = await app.inject({
      method: 'POST',
      url: '/internal/v1/events',
      headers: { ...adminHeaders, 'content-type': 'application/json' },
      payload: body,
    });
    assert.equal(res.statusCode, 201, res.body);
    return id;
  };

  it("answers the listing's item, data byte for byte; another integrator's and unknown ids 404", async () => {
    const data = '{"amount":12345678901234567890.10,"note":"caf\\u00e9","z":1,"a":2}';
    const id = await publish(acme.integratorId, data);
    const one = await get(acme, `/v1/query/events/${id}`);
    assert.equal(one.statusCode, 200, one.body);
    assert.ok(one.body.includes(`"data":${data}`), one.body);
    const listed = await get(acme, '/v1/query/events?limit=1');
    assert.equal(listed.body, `{"events":[${one.body}],"nextCursor":null}`, 'the same bytes as the listing');
    assert.equal((await get(other, `/v1/query/events/${id}`)).statusCode, 404);
    assert.equal((await get(acme, `/v1/query/events/${randomUUID()}`)).statusCode, 404);
    assert.equal((await get(acme, '/v1/query/events/not-a-uuid')).statusCode, 404);
  });

  it("answers 404 for Herald's own events, which the listing never shows", async () => {
    const own = heraldEventDoc(
      {
        id: randomUUID(),
        eventType: SUBSCRIPTION_PAUSED_TYPE,
        integratorId: acme.integratorId,
        livemode: true,
        data: jsonTextOf({}),
      },
      new Date(),
    );
    await app.store.events.insertMany([own]);
    assert.ok(await app.store.events.findById(own._id));
    assert.equal((await get(acme, `/v1/query/events/${own._id}`)).statusCode, 404);
  });
});
