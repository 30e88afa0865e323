// Property tests (fast-check) of payload fidelity through the real stack: API over real HTTP, MongoDB-wire server,
// Temporal dev server, worker and an HTTPS receiver. Generated JSON text as `data` comes back byte for byte from
// the ingest answer, the listing and a signed delivery; nesting past the bound is a 400; no input reaches a 5xx.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import { listEventsResponse } from '../../src/api/schemas/events.js';
import { HeraldClient } from '../../src/client/herald-client.js';
import { JSON_DEPTH_LIMIT } from '../../src/api/json-body.js';
import { assertSignedDelivery, eventually } from '../helpers/deliveries.js';
import { startDeliveryStack, type DeliveryStack } from '../helpers/delivery-stack.js';
import { sampleEvent } from '../helpers/events.js';
import { ADMIN_TOKEN, registerIntegrator } from '../helpers/integrators.js';
import { eventBodyText, eventLayout, jsonValueText, nestedJsonText } from '../helpers/json-text.js';
import type { Subscription } from '../../src/client/herald-client.js';

/** An event's fields but `data`, every one given and already normalised, in §2.1 order: their JSON is the head of
 * the delivery body. */
function eventFields(integratorId: string) {
  const { data: _data, ...fields } = sampleEvent(integratorId);
  return fields as Record<string, unknown> & { id: string; accountId: string };
}

/** What a delivery must carry for these fields and this data text: written here, not by Herald's serialiser. */
const expectedBody = (fields: ReturnType<typeof eventFields>, data: string) =>
  `${JSON.stringify(fields).slice(0, -1)},"data":${data}}`;

describe('payload fidelity properties (fast-check, real stack)', () => {
  let s: DeliveryStack;
  let baseUrl: string;
  let subscription: Subscription;
  /** Bob has no subscription: his events exercise ingestion and the listing only. */
  let bob: { integratorId: string; client: HeraldClient; lastText: () => string };

  before(async () => {
    s = await startDeliveryStack();
    baseUrl = `http://127.0.0.1:${(s.app.server.address() as AddressInfo).port}`;
    subscription = await s.subscribe('/fidelity');
    const registered = await registerIntegrator(s.app, baseUrl, 'bob');
    let text = '';
    // The listing's exact text: the client parses it (losing digits), so the test reads what fetch received.
    const capture: typeof fetch = async (input, init) => {
      const res = await fetch(input, init);
      text = await res.clone().text();
      return res;
    };
    bob = {
      integratorId: registered.integratorId,
      client: new HeraldClient({ baseUrl, privateKey: registered.privateKey, fetch: capture }),
      lastText: () => text,
    };
  });
  after(async () => s.stop());

  const post = async (body: string | Buffer) => {
    const res = await fetch(`${baseUrl}/internal/v1/events`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body,
    });
    return { status: res.status, text: await res.text() };
  };

  it('carries generated data text byte for byte to the ingest answer and the listing', async () => {
    await fc.assert(
      fc.asyncProperty(jsonValueText, eventLayout, async (data, layout) => {
        const fields = eventFields(bob.integratorId);
        const res = await post(eventBodyText(fields, data, layout));
        assert.equal(res.status, 201, res.text);
        const item = `${expectedBody(fields, data).slice(0, -1)},"createdAt":"`;
        assert.ok(res.text.startsWith(item), `answer: ${res.text}`);

        const page = await bob.client.listEventsPage({ accountId: fields.accountId });
        const listed = bob.lastText();
        assert.ok(listed.startsWith(`{"events":[${item}`), `listing: ${listed}`);
        assert.match(listed, /,"createdAt":"[^"]+"}\],"nextCursor":null}$/);
        assert.equal(page.events.length, 1);
        listEventsResponse.parse(JSON.parse(listed)); // the text honours the declared response schema
      }),
      { numRuns: 100 },
    );
  });

  it('delivers generated data text byte for byte, signed over those bytes', async () => {
    await fc.assert(
      fc.asyncProperty(jsonValueText, eventLayout, async (data, layout) => {
        const fields = eventFields(s.alice.integratorId);
        const res = await post(eventBodyText(fields, data, layout));
        assert.equal(res.status, 201, res.text);
        const request = await eventually(() =>
          s.requestsTo('/fidelity').find((r) => r.body.includes(`"id":"${fields.id}"`)),
        );
        assert.ok(request.body.equals(Buffer.from(expectedBody(fields, data), 'utf8')), request.body.toString());
        assertSignedDelivery(request, subscription.publicKey);
      }),
      { numRuns: 30 },
    );
  });

  it(`accepts data nested up to the bound (${JSON_DEPTH_LIMIT - 1} levels inside the body) and refuses deeper with a 400`, async () => {
    await fc.assert(
      fc.asyncProperty(nestedJsonText(1, JSON_DEPTH_LIMIT - 1), eventLayout, async ({ text }, layout) => {
        const fields = eventFields(bob.integratorId);
        const res = await post(eventBodyText(fields, text, layout));
        assert.equal(res.status, 201, res.text);
        assert.ok(res.text.startsWith(`${expectedBody(fields, text).slice(0, -1)},"createdAt":"`));
      }),
      { numRuns: 20 },
    );
    await fc.assert(
      fc.asyncProperty(nestedJsonText(JSON_DEPTH_LIMIT, 5000), eventLayout, async ({ text }, layout) => {
        const fields = eventFields(bob.integratorId);
        const res = await post(eventBodyText(fields, text, layout));
        assert.equal(res.status, 400, res.text);
        const body = JSON.parse(res.text) as { error: string; message: string };
        assert.equal(body.error, 'invalid_request');
        assert.match(body.message, new RegExp(`^body\\.data[.\\[][^:]*: .*the limit is ${JSON_DEPTH_LIMIT}`));
        assert.equal(await s.app.store.events.collection.countDocuments({ _id: fields.id }), 0, 'nothing stored');
      }),
      { numRuns: 20 },
    );
  });

  it('answers every mangled body with a 2xx or a 4xx in the error shape, never a 5xx', async () => {
    const mangled = fc
      .tuple(
        fc.oneof(
          jsonValueText,
          nestedJsonText(0, 3000).map((n) => n.text),
        ),
        eventLayout,
        fc.nat(),
        fc.nat(),
        fc.uint8Array({ maxLength: 4 }),
        fc.boolean(),
      )
      .map(([data, layout, at, cut, junk, truncate]) => {
        const bytes = Buffer.from(eventBodyText(eventFields(bob.integratorId), data, layout), 'utf8');
        const i = at % (bytes.length + 1);
        const rest = bytes.subarray(truncate ? bytes.length : Math.min(bytes.length, i + (cut % 3)));
        return Buffer.concat([bytes.subarray(0, i), junk, rest]);
      });
    await fc.assert(
      fc.asyncProperty(mangled, async (body) => {
        const res = await post(body);
        assert.ok(res.status < 500, `${res.status} ${res.text} for ${body.toString('hex')}`);
        if (res.status >= 400) {
          const err = JSON.parse(res.text) as { error: string; status: number; message?: string };
          assert.equal(err.status, res.status);
          assert.equal(typeof err.error, 'string');
        }
      }),
      { numRuns: 300 },
    );
  });
});
