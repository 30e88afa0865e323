// Issue 11 item 7, the smaller findings, each proven over the real app: an empty JSON body is no body, uuids match in
// any case, the deliveries cursor is bound to its integrator, /internal is absent from the public OpenAPI document,
// and customer.awaiting_information (subscribable, never in the history enum) is refused at publishing by name.
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { FastifyInstance } from 'fastify';
import { buildTestApp, closeTestApp } from '../helpers/app.js';
import { listen, registerIntegrator, type TestIntegrator } from '../helpers/integrators.js';
import { postEvent, sampleEvent } from '../helpers/events.js';
import { signedHeaders } from '../helpers/signed.js';
import { HOOK_URL, SUBSCRIPTION_DNS } from '../helpers/subscriptions.js';

describe('smaller API findings', () => {
  let app: FastifyInstance;
  let acme: TestIntegrator;
  let other: TestIntegrator;
  let n = 0;
  before(async () => {
    ({ app } = await buildTestApp({ HERALD_DNS_STATIC: SUBSCRIPTION_DNS }));
    const baseUrl = await listen(app);
    acme = await registerIntegrator(app, baseUrl, 'acme');
    other = await registerIntegrator(app, baseUrl, 'other');
  });
  after(async () => closeTestApp(app));

  /** A signed request with `Content-Type: application/json` always set, as many HTTP clients do. */
  const send = (who: TestIntegrator, method: 'GET' | 'POST' | 'DELETE' | 'PATCH', path: string, body = '') => {
    // Queries are strict, so each request differs by its timestamp (within the window), never a replay.
    const timestamp = String(Math.floor(Date.now() / 1000) - (++n % 50));
    const headers = { ...signedHeaders(who, method, path, body, timestamp), 'content-type': 'application/json' };
    return app.inject({ method, url: path, headers, payload: body });
  };

  it('treats Content-Type: application/json with an empty body as no body on body-less routes', async () => {
    const sub = await acme.client.createSubscription({ url: HOOK_URL });
    const rotated = await send(acme, 'POST', `/v1/webhooks/subscriptions/${sub.id}/rotate-key`);
    assert.equal(rotated.statusCode, 201, rotated.body);
    const listed = await send(acme, 'GET', '/v1/webhooks/subscriptions');
    assert.equal(listed.statusCode, 200, listed.body);
    const deleted = await send(acme, 'DELETE', `/v1/webhooks/subscriptions/${sub.id}`);
    assert.equal(deleted.statusCode, 204, deleted.body);
    // A route that needs a body says so through its validation, not as a JSON parse error.
    const created = await send(acme, 'POST', '/v1/webhooks/subscriptions');
    assert.equal(created.statusCode, 400);
    assert.equal(created.json<{ error: string }>().error, 'invalid_request');
    assert.match(created.json<{ message: string }>().message, /^body/);
  });

  it('matches uuids in any case, on integrator and admin routes, in paths and in filters', async () => {
    const sub = await acme.client.createSubscription({ url: HOOK_URL });
    const upper = sub.id.toUpperCase();
    const got = await send(acme, 'GET', `/v1/webhooks/subscriptions/${upper}`);
    assert.equal(got.statusCode, 200, got.body);
    assert.equal(got.json<{ id: string }>().id, sub.id);
    const delivery = await app.store.deliveries.createOnce({
      integratorId: acme.integratorId,
      subscriptionId: sub.id,
      eventId: randomUUID(),
      eventType: 'customer.created',
    });
    const one = await send(acme, 'GET', `/v1/webhooks/deliveries/${delivery._id.toUpperCase()}`);
    assert.equal(one.statusCode, 200, one.body);
    const filtered = await send(acme, 'GET', `/v1/webhooks/deliveries?subscriptionId=${upper}`);
    assert.deepEqual(
      filtered.json<{ deliveries: Array<{ id: string }> }>().deliveries.map((d) => d.id),
      [delivery._id],
    );
    const admin = await app.inject({
      method: 'GET',
      url: `/internal/v1/integrators/${acme.integratorId.toUpperCase()}`,
      headers: { authorization: `Bearer ${app.config.HERALD_ADMIN_TOKEN}` },
    });
    assert.equal(admin.statusCode, 200, admin.body);
  });

  it('binds the deliveries cursor to its integrator: another integrator gets 400 invalid_cursor', async () => {
    const sub = await acme.client.createSubscription({ url: HOOK_URL });
    for (let i = 0; i < 2; i++)
      await app.store.deliveries.createOnce({
        integratorId: acme.integratorId,
        subscriptionId: sub.id,
        eventId: randomUUID(),
        eventType: 'customer.created',
      });
    const page = await send(acme, 'GET', '/v1/webhooks/deliveries?limit=1');
    const cursor = page.json<{ nextCursor: string | null }>().nextCursor;
    assert.ok(cursor);
    const own = await send(acme, 'GET', `/v1/webhooks/deliveries?limit=1&cursor=${cursor}`);
    assert.equal(own.statusCode, 200);
    const foreign = await send(other, 'GET', `/v1/webhooks/deliveries?limit=1&cursor=${cursor}`);
    assert.equal(foreign.statusCode, 400, foreign.body);
    assert.equal(foreign.json<{ error: string }>().error, 'invalid_cursor');
  });

  it('keeps /internal out of the public /openapi.json; every other route but health carries its security', async () => {
    const doc = (await app.inject({ method: 'GET', url: '/openapi.json' })).json<{
      paths: Record<string, Record<string, { security?: unknown[] }>>;
    }>();
    const paths = Object.keys(doc.paths);
    assert.deepEqual(
      paths.filter((p) => p.toLowerCase().includes('internal')),
      [],
    );
    assert.ok(paths.includes('/v1/query/events'));
    for (const [path, ops] of Object.entries(doc.paths))
      for (const [method, op] of Object.entries(ops)) {
        if (path.startsWith('/v1/health')) assert.equal(op.security, undefined, path);
        // The portal's session: its own credentials (docs/portal.md).
        else if (path === '/portal/session')
          assert.deepEqual(op.security, [{ [method === 'post' ? 'portalLink' : 'portalSession']: [] }], method);
        else assert.deepEqual(op.security, [{ pubkey: [], timestamp: [], signature: [] }], `${method} ${path}`);
      }
  });

  it('accepts customer.awaiting_information in a subscription and refuses to publish it, saying why', async () => {
    const sub = await acme.client.createSubscription({ url: HOOK_URL, eventTypes: ['customer.awaiting_information'] });
    assert.deepEqual(sub.eventTypes, ['customer.awaiting_information']);
    const res = await postEvent(app, sampleEvent(acme.integratorId, { eventType: 'customer.awaiting_information' }));
    assert.equal(res.statusCode, 400);
    assert.match(
      res.json<{ message: string }>().message,
      /customer\.awaiting_information is subscribable but not in the history enum/,
    );
  });
});
