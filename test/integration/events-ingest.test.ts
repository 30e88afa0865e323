// POST /internal/v1/events: validation, the stored form, idempotency (also under races), 409, 413, the hand-off.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { eventHistoryItem } from '../../src/api/schemas/events.js';
import { HeraldAdminClient } from '../../src/client/admin-client.js';
import { HeraldApiError } from '../../src/client/http.js';
import { serializeEventPayload } from '../../src/domain/event-payload.js';
import { newSigningKey } from '../../src/api/subscription-input.js';
import { newEventDoc } from '../../src/domain/event-record.js';
import { deliveryIdOf } from '../../src/store/derived-ids.js';
import { deliveryWorkflowId } from '../../workflows/messages.js';
import { jsonTextOf } from '../../src/domain/json-text.js';
import { buildTestApp, closeTestApp } from '../helpers/app.js';
import { postEvent, sampleEvent } from '../helpers/events.js';
import { ADMIN_TOKEN, listen, registerIntegrator, type TestIntegrator } from '../helpers/integrators.js';

const HISTORY_FIELDS = Object.keys(eventHistoryItem.shape);

describe('event ingestion: POST /internal/v1/events', () => {
  let app: FastifyInstance;
  let acme: TestIntegrator;
  let admin: HeraldAdminClient;

  before(async () => {
    ({ app } = await buildTestApp());
    const baseUrl = await listen(app);
    acme = await registerIntegrator(app, baseUrl);
    admin = new HeraldAdminClient(baseUrl, ADMIN_TOKEN);
  });
  after(async () => closeTestApp(app));

  const count = (id: string) => app.store.events.collection.countDocuments({ _id: id });

  it('requires the admin bearer token', async () => {
    const event = sampleEvent(acme.integratorId);
    for (const authorization of ['', 'Bearer nope-nope-nope-nope-nope']) {
      const res = await postEvent(app, event, { authorization });
      assert.equal(res.statusCode, 401);
      assert.deepEqual(res.json(), { error: 'unauthorized', status: 401 });
    }
    assert.equal(await count(event.id as string), 0);
  });

  it('stores a new event: 201, §2.1 order, server createdAt, the §6.4 body', async () => {
    const event = sampleEvent(acme.integratorId);
    const before = Date.now();
    const { created, event: stored } = await admin.publishEvent(event as never);
    assert.equal(created, true);
    assert.deepEqual(Object.keys(stored), HISTORY_FIELDS);
    eventHistoryItem.parse(stored);
    const { createdAt, ...rest } = stored;
    assert.deepEqual(rest, event);
    assert.ok(Date.parse(createdAt) >= before && Date.parse(createdAt) <= Date.now());
    assert.match(createdAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);

    const doc = await app.store.events.findById(event.id as string);
    assert.ok(doc);
    assert.equal(doc.createdAt.toISOString(), createdAt);
    const { _id, body: _body, createdAt: _c, ...fields } = doc;
    const data = jsonTextOf(event.data);
    assert.equal(doc.body, serializeEventPayload({ id: _id, ...fields, data }));
    assert.equal(doc.body, JSON.stringify(event), 'the delivery body is the event in §2.1 order, byte for byte');
  });

  it('defaults omitted optional fields to null and normalises ids and dates', async () => {
    const id = randomUUID();
    const res = await postEvent(app, {
      id: id.toUpperCase(),
      eventType: 'customer.created',
      occurredAt: '2026-03-01T13:34:56.7+01:00',
      livemode: true,
      payloadVersion: 0,
      integratorId: acme.integratorId.toUpperCase(),
    });
    assert.equal(res.statusCode, 201, res.body);
    const body = res.json();
    assert.equal(body.id, id);
    assert.equal(body.integratorId, acme.integratorId);
    assert.equal(body.occurredAt, '2026-03-01T12:34:56.700Z');
    for (const f of ['accountId', 'userId', 'entityId', 'beneficiaryId', 'transactionId', 'provider', 'data']) {
      assert.equal(body[f], null, f);
    }
    assert.equal(body.providerEventId, null);
    // The same event in another notation is the same content.
    const again = await postEvent(app, {
      id,
      eventType: 'customer.created',
      occurredAt: '2026-03-01T12:34:56.700Z',
      livemode: true,
      payloadVersion: 0,
      integratorId: acme.integratorId,
      data: null,
      accountId: null,
    });
    assert.equal(again.statusCode, 200, again.body);
    assert.equal(again.json().createdAt, body.createdAt);
  });

  it('is idempotent: the same event again → 200 with the stored event; other content → 409, nothing changed', async () => {
    const event = sampleEvent(acme.integratorId);
    const first = await postEvent(app, event);
    assert.equal(first.statusCode, 201);
    const second = await postEvent(app, event);
    assert.equal(second.statusCode, 200);
    assert.equal(second.body, first.body);
    const viaClient = await admin.publishEvent(event as never);
    assert.equal(viaClient.created, false);

    const other = await registerIntegrator(app, 'http://127.0.0.1:1', 'other');
    for (const change of [
      { data: { amount: '12.51' } },
      { eventType: 'transaction.reverted' },
      { occurredAt: '2026-03-01T12:34:56.790Z' },
      { accountId: null },
      { livemode: true },
      { integratorId: other.integratorId },
    ]) {
      const res = await postEvent(app, { ...event, ...change });
      assert.equal(res.statusCode, 409, JSON.stringify(change));
      assert.deepEqual(res.json(), {
        error: 'conflict',
        status: 409,
        message: `an event with id ${event.id as string} already exists with different content`,
      });
    }
    await assert.rejects(
      admin.publishEvent({ ...event, livemode: true } as never),
      (e: unknown) => e instanceof HeraldApiError && e.status === 409,
    );
    const stored = await app.store.events.findById(event.id as string);
    assert.equal(stored?.body, JSON.stringify(event));
  });

  it('resolves concurrent submissions of one id: one 201, the others 200 or 409, one stored event', async () => {
    const event = sampleEvent(acme.integratorId);
    const same = await Promise.all(Array.from({ length: 12 }, () => postEvent(app, event)));
    assert.deepEqual(
      same.map((r) => r.statusCode).sort(),
      [200, 200, 200, 200, 200, 200, 200, 200, 200, 200, 200, 201],
    );
    assert.equal(new Set(same.map((r) => r.json().createdAt)).size, 1);

    const raced = sampleEvent(acme.integratorId);
    const variants = Array.from({ length: 8 }, (_, i) => ({ ...raced, data: { variant: i } }));
    const results = await Promise.all(variants.map((v) => postEvent(app, v)));
    const codes = results.map((r) => r.statusCode);
    assert.equal(codes.filter((c) => c === 201).length, 1, String(codes));
    assert.equal(codes.filter((c) => c === 409).length, 7, String(codes));
    const winner = results.findIndex((r) => r.statusCode === 201);
    assert.equal((await app.store.events.findById(raced.id as string))?.body, JSON.stringify(variants[winner]));
    assert.equal(await count(raced.id as string), 1);
  });

  it('starts one delivery workflow per subscription before storing the event; a re-submission starts none again', async () => {
    const id = randomUUID();
    const { subscription } = await app.store.subscriptions.create(
      {
        _id: id,
        integratorId: acme.integratorId,
        url: 'https://hooks.example.com/herald',
        eventTypes: 'all',
        description: null,
      },
      newSigningKey(app.vault, id),
      new Date(Date.now() - 60_000),
    );
    const runOf = async (eventId: string) => {
      const handle = app.temporal.client.workflow.getHandle(
        deliveryWorkflowId(deliveryIdOf(eventId, subscription._id)),
      );
      return (await handle.describe()).runId;
    };
    try {
      const event = sampleEvent(acme.integratorId);
      assert.equal((await postEvent(app, event)).statusCode, 201);
      const run = await runOf(event.id as string);
      assert.equal((await postEvent(app, event)).statusCode, 200);
      assert.equal(await runOf(event.id as string), run, 'the re-submission started nothing');

      // A process that died after starting the workflows, before storing the event: the producer got no 2xx and
      // sends the event again, which stores it; the workflow already waiting for it is the one that delivers it.
      const crashed = sampleEvent(acme.integratorId);
      await app.deliveryService.fanOut.handOff(
        newEventDoc({ ...crashed, occurredAt: new Date(crashed.occurredAt as string) } as never),
      );
      const waiting = await runOf(crashed.id as string);
      assert.equal(await count(crashed.id as string), 0);
      assert.equal((await postEvent(app, crashed)).statusCode, 201);
      assert.equal(await runOf(crashed.id as string), waiting);
    } finally {
      await app.store.subscriptions.softDelete(acme.integratorId, subscription._id);
    }
  });

  it('rejects every invalid field with a 400 naming it, and writes nothing', async () => {
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ id: 'not-a-uuid' }, /^body\.id: /],
      [{ id: undefined }, /^body\.id: /],
      [{ eventType: 'customer.exploded' }, /^body\.eventType: /],
      [{ eventType: 'customer.awaiting_information' }, /^body\.eventType: /],
      [
        { eventType: 'webhook.test' },
        /^body\.eventType: webhook\.test is not a lifecycle event: only the test endpoint/,
      ],
      [{ occurredAt: '2026-03-01 12:00:00' }, /^body\.occurredAt: /],
      [{ occurredAt: '2026-03-01T12:00:00' }, /^body\.occurredAt: /],
      [{ occurredAt: 1767225600000 }, /^body\.occurredAt: /],
      [{ livemode: 'true' }, /^body\.livemode: /],
      [{ livemode: undefined }, /^body\.livemode: /],
      [{ payloadVersion: 1.5 }, /^body\.payloadVersion: /],
      [{ payloadVersion: 2 ** 31 }, /^body\.payloadVersion: /],
      [{ payloadVersion: -(2 ** 31) - 1 }, /^body\.payloadVersion: /],
      [{ payloadVersion: '1' }, /^body\.payloadVersion: /],
      [{ integratorId: 'acme' }, /^body\.integratorId: /],
      [{ integratorId: randomUUID() }, /^body\.integratorId: no registered integrator has this id$/],
      [{ accountId: 'x' }, /^body\.accountId: /],
      [{ userId: 42 }, /^body\.userId: /],
      [{ entityId: '' }, /^body\.entityId: /],
      [{ beneficiaryId: 'x' }, /^body\.beneficiaryId: /],
      [{ transactionId: 'x' }, /^body\.transactionId: /],
      [{ provider: 'bank' }, /^body\.provider: /],
      [{ providerEventId: 7 }, /^body\.providerEventId: /],
      [{ providerEventId: 'x'.repeat(513) }, /^body\.providerEventId: /],
      [{ createdAt: new Date().toISOString() }, /^body: Unrecognized key: "createdAt"$/],
      [{ colour: 'red' }, /^body: Unrecognized key: "colour"$/],
    ];
    for (const [change, message] of cases) {
      const event = { ...sampleEvent(acme.integratorId), ...change };
      const res = await postEvent(app, event);
      assert.equal(res.statusCode, 400, JSON.stringify(change));
      const body = res.json();
      assert.equal(body.error, 'invalid_request');
      assert.equal(body.status, 400);
      assert.match(body.message, message, JSON.stringify(change));
      if (typeof event.id === 'string') assert.equal(await count(event.id), 0, JSON.stringify(change));
    }
    for (const payload of ['[]', '"event"', 'null', '{"id": ']) {
      const res = await postEvent(app, payload);
      assert.equal(res.statusCode, 400, payload);
      assert.equal(res.json().status, 400);
    }
  });

  it('accepts any JSON value as data, and the §2.3 providers and null', async () => {
    // Nested arrays and `$`/`.` keys are JSON that BSON (FerretDB) refuses: data lives in the stored body only.
    for (const data of [0, 'text', [1, [2, [3]]], { a: { b: { c: [null] } } }, false, { $where: 1, 'a.b': [[]] }]) {
      const event = sampleEvent(acme.integratorId, { data });
      const res = await postEvent(app, event);
      assert.equal(res.statusCode, 201, res.body);
      assert.deepEqual(res.json().data, data);
      const stored = await app.store.events.findById(event.id as string);
      assert.ok(stored?.body.endsWith(`,"data":${JSON.stringify(data)}}`), 'data kept as sent, in the body only');
      const raw = await app.store.events.collection.findOne({ _id: event.id as string });
      assert.equal(raw && 'data' in raw, false);
      assert.equal((await postEvent(app, event)).statusCode, 200);
    }
    for (const provider of ['service', 'kyc_provider', 'transfer_provider', 'onchain', null]) {
      const res = await postEvent(app, sampleEvent(acme.integratorId, { provider }));
      assert.equal(res.statusCode, 201, String(provider));
    }
  });

  it('refuses a body over 256 KiB with 413 payload_too_large, and stores nothing', async () => {
    const base = sampleEvent(acme.integratorId, { data: '' });
    const padding = 257 * 1024 - JSON.stringify(base).length;
    const event = { ...base, data: 'x'.repeat(padding) };
    const text = JSON.stringify(event);
    assert.equal(Buffer.byteLength(text), 257 * 1024);
    const res = await postEvent(app, text);
    assert.equal(res.statusCode, 413);
    assert.equal(res.json().error, 'payload_too_large');
    assert.equal(res.json().status, 413);
    assert.equal(await count(base.id as string), 0);
    // Just under the limit is fine.
    const fits = { ...base, id: randomUUID(), data: 'x'.repeat(padding - 2 * 1024) };
    assert.equal((await postEvent(app, fits)).statusCode, 201);
  });
});
