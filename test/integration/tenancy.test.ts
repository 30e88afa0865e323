// Cross-tenant isolation: for every integrator route, one integrator can neither read, change, test, retry nor
// delete another's resources — the answer is 404, never 403 and never their data — and listings never show them.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { FastifyInstance } from 'fastify';
import { HeraldApiError } from '../../src/client/http.js';
import type { DeliveryDoc, EventDoc, SubscriptionDoc } from '../../src/store/documents.js';
import { buildTestApp, closeTestApp } from '../helpers/app.js';
import { lifecycleEvent, seedSubscription } from '../helpers/deliveries.js';
import { listen, registerIntegrator, type TestIntegrator } from '../helpers/integrators.js';
import { subscriptionRoutesFor } from '../helpers/subscriptions.js';

interface Owned {
  integrator: TestIntegrator;
  subscription: SubscriptionDoc;
  event: EventDoc;
  delivery: DeliveryDoc;
}

describe('tenant isolation across every integrator route', () => {
  let app: FastifyInstance;
  let alice: Owned;
  let bob: Owned;

  async function tenant(name: string, baseUrl: string): Promise<Owned> {
    const integrator = await registerIntegrator(app, baseUrl, name);
    const { subscription } = await seedSubscription(app.store, app.vault, {
      integratorId: integrator.integratorId,
      url: 'https://hooks.example.com/herald',
    });
    const event = lifecycleEvent(integrator.integratorId);
    await app.store.events.insertOnce(event);
    const delivery = await app.store.deliveries.createOnce({
      integratorId: integrator.integratorId,
      subscriptionId: subscription._id,
      eventId: event._id,
      eventType: event.eventType,
    });
    return { integrator, subscription, event, delivery };
  }

  before(async () => {
    ({ app } = await buildTestApp({ HERALD_DNS_STATIC: 'hooks.example.com=93.184.216.34' }));
    const baseUrl = await listen(app);
    alice = await tenant('alice', baseUrl);
    bob = await tenant('bob', baseUrl);
  });
  after(async () => closeTestApp(app));

  /** Every route that addresses one resource, aimed by `actor` at `owner`'s resource. */
  const targeted = (owner: Owned): [method: string, path: string, body?: unknown][] => [
    ['GET', `/v1/webhooks/deliveries/${owner.delivery._id}`],
    ['POST', `/v1/webhooks/deliveries/${owner.delivery._id}/retry`],
    ['POST', `/v1/webhooks/subscriptions/${owner.subscription._id}/test`],
    ...subscriptionRoutesFor(owner.subscription._id),
  ];

  it("answers 404 with the plain not-found body to every route aimed at another integrator's resource", async () => {
    for (const [attacker, victim] of [
      [bob, alice],
      [alice, bob],
    ] as const) {
      for (const [method, path, body] of targeted(victim)) {
        await assert.rejects(
          attacker.integrator.client.request(method, path, body === undefined ? {} : { body }),
          (err: unknown) =>
            err instanceof HeraldApiError &&
            err.status === 404 &&
            JSON.stringify(err.body) === '{"error":"not_found","status":404}',
          `${method} ${path}`,
        );
      }
    }
    // Nothing happened to the victim's resources.
    assert.equal((await app.store.deliveries.findById(alice.delivery._id))?.status, 'pending');
    assert.equal(await app.store.deliveries.collection.countDocuments({ attempts: { $exists: true } }), 0);
    assert.equal(await app.store.events.collection.countDocuments({ eventType: 'webhook.test' }), 0);
    for (const owner of [alice, bob]) {
      assert.deepEqual(await app.store.subscriptions.findById(owner.subscription._id), owner.subscription);
      assert.equal(await app.store.subscriptions.keys.countDocuments({ subscriptionId: owner.subscription._id }), 1);
    }
  });

  it('never lists or filters its way to another integrator’s resources', async () => {
    const { client } = bob.integrator;
    const own = await client.request<{ deliveries: { id: string }[] }>('GET', '/v1/webhooks/deliveries');
    assert.deepEqual(
      own.deliveries.map((d) => d.id),
      [bob.delivery._id],
    );
    for (const query of [{ subscriptionId: alice.subscription._id }, { eventId: alice.event._id }]) {
      const page = await client.request<{ deliveries: unknown[] }>('GET', '/v1/webhooks/deliveries', { query });
      assert.deepEqual(page.deliveries, [], JSON.stringify(query));
    }
    const subscriptions = await client.request<{ subscriptions: { id: string }[] }>(
      'GET',
      '/v1/webhooks/subscriptions',
    );
    assert.deepEqual(
      subscriptions.subscriptions.map((s) => s.id),
      [bob.subscription._id],
    );
    const events = await client.listEventsPage();
    assert.deepEqual(
      events.events.map((e) => e.id),
      [bob.event._id],
    );
    const filtered = await client.listEventsPage({ accountId: alice.event.accountId ?? undefined });
    assert.deepEqual(filtered.events, [], 'filtering by another integrator’s account id finds nothing');
    const credential = await client.credential();
    assert.equal(credential.integratorId, bob.integrator.integratorId);
  });

  it('gives the same answers through every typed HeraldClient method', async () => {
    const client = bob.integrator.client;
    const sub = alice.subscription._id;
    const calls: [string, () => Promise<unknown>][] = [
      ['getDelivery', () => client.getDelivery(alice.delivery._id)],
      ['retryDelivery', () => client.retryDelivery(alice.delivery._id)],
      ['sendTestDelivery', () => client.sendTestDelivery(sub)],
      ['getSubscription', () => client.getSubscription(sub)],
      ['updateSubscription', () => client.updateSubscription(sub, { description: 'mine now' })],
      ['rotateSubscriptionKey', () => client.rotateSubscriptionKey(sub)],
      ['deleteSubscription', () => client.deleteSubscription(sub)],
    ];
    for (const [name, call] of calls) {
      await assert.rejects(call(), (err: unknown) => err instanceof HeraldApiError && err.status === 404, name);
    }
    const ids = async <T extends { id: string }>(items: AsyncIterable<T>) => {
      const out: string[] = [];
      for await (const item of items) out.push(item.id);
      return out;
    };
    assert.deepEqual(await ids(client.listDeliveries({ subscriptionId: sub })), []);
    assert.deepEqual(await ids(client.listDeliveries()), [bob.delivery._id]);
    assert.deepEqual(await ids(client.listSubscriptions()), [bob.subscription._id]);
    assert.deepEqual(await ids(client.listEvents()), [bob.event._id]);
    assert.deepEqual(await app.store.subscriptions.findById(sub), alice.subscription, 'untouched');
  });
});
