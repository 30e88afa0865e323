// Cross-tenant isolation: for every integrator route — taken from the route table, so a route added later is covered
// — one integrator can neither read, change, test, retry, pause nor cancel another's resources (the answer is 404,
// never 403 and never their data), and listings never show them.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { FastifyInstance, RouteOptions } from 'fastify';
import { integratorSecurity } from '../../src/api/scopes/integrator-scope.js';
import { HeraldApiError } from '../../src/client/http.js';
import type { DeliveryDoc, EventDoc, SubscriptionDoc } from '../../src/store/documents.js';
import { campaignWorkflowId } from '../../workflows/recovery-messages.js';
import { closeTestApp } from '../helpers/app.js';
import { lifecycleEvent, seedSubscription } from '../helpers/deliveries.js';
import { listen, registerIntegrator, type TestIntegrator } from '../helpers/integrators.js';
import { appWithRoutes, methodsOf } from '../helpers/routes.js';
import { HOOK_URL } from '../helpers/subscriptions.js';

interface Owned {
  integrator: TestIntegrator;
  subscription: SubscriptionDoc;
  event: EventDoc;
  delivery: DeliveryDoc;
  /** A recovery campaign of the subscription, opened through the API (its workflow waits: no worker runs here). */
  campaignId: string;
}

/** The resource each path parameter of an integrator route names. A route with a new parameter fails until added. */
const resourceOf = (owner: Owned): Record<string, string> => ({
  subscription_id: owner.subscription._id,
  delivery_id: owner.delivery._id,
  event_id: owner.event._id,
  campaign_id: owner.campaignId,
});

/** A valid body for every integrator route that takes one, so that an answer comes from the route, not validation. */
const BODIES: Record<string, unknown> = {
  'POST /v1/webhooks/subscriptions': { url: HOOK_URL },
  'PATCH /v1/webhooks/subscriptions/:subscription_id': { description: 'mine now' },
  'POST /v1/webhooks/subscriptions/:subscription_id/recover': { since: '2026-01-01T00:00:00.000Z' },
  'POST /v1/portal/sessions': { scope: 'read' },
};

const paramsOf = (url: string): string[] => [...url.matchAll(/:([A-Za-z_]+)/g)].map((m) => m[1]!);
const queryKeysOf = (route: RouteOptions): string[] =>
  Object.keys((route.schema?.querystring as { shape?: object } | undefined)?.shape ?? {});

describe('tenant isolation across every integrator route', () => {
  let app: FastifyInstance;
  let alice: Owned;
  let bob: Owned;
  /** Every route of the integrator scope, as registered. */
  let routes: RouteOptions[];
  let baseUrl: string;

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
    const campaign = await integrator.client.recoverDeliveries(subscription._id, { since: '2026-01-01T00:00:00Z' });
    // As it is now, campaign opened: the requests aimed at it below must leave it so.
    const now = (await app.store.subscriptions.findById(subscription._id)) ?? subscription;
    return { integrator, subscription: now, event, delivery, campaignId: campaign.id };
  }

  before(async () => {
    let collected: RouteOptions[];
    ({ app, routes: collected } = await appWithRoutes({ HERALD_DNS_STATIC: 'hooks.example.com=93.184.216.34' }));
    // The integrator scope stamps its routes' OpenAPI security (src/api/scopes/integrator-scope.ts).
    routes = collected.filter((r) => (r.schema as { security?: unknown } | undefined)?.security === integratorSecurity);
    baseUrl = await listen(app);
    alice = await tenant('alice', baseUrl);
    bob = await tenant('bob', baseUrl);
  });
  after(async () => closeTestApp(app));

  /** The number of events in a campaign's workflow history: a control that reached it would add some. */
  const campaignHistoryLength = async (owner: Owned) =>
    (await app.temporal.client.workflow.getHandle(campaignWorkflowId(owner.campaignId)).fetchHistory()).events?.length;

  it('takes the integrator routes from the route table', () => {
    const urls = new Set(routes.map((r) => r.url));
    for (const url of [
      '/v1/webhooks/subscriptions/:subscription_id/pause',
      '/v1/webhooks/subscriptions/:subscription_id/resume',
      '/v1/webhooks/subscriptions/:subscription_id/deliveries/summary',
      '/v1/webhooks/deliveries/:delivery_id/cancel',
      '/v1/webhooks/subscriptions/:subscription_id/recover',
      '/v1/webhooks/campaigns/:campaign_id',
      '/v1/webhooks/campaigns/:campaign_id/cancel',
    ])
      assert.ok(urls.has(url), url);
    assert.ok(routes.length >= 20, `only ${routes.length} integrator routes collected`);
  });

  it("answers 404 with the plain not-found body to every route aimed at another integrator's resource", async () => {
    const historyBefore = [await campaignHistoryLength(alice), await campaignHistoryLength(bob)];
    let sent = 0;
    for (const [attacker, victim] of [
      [bob, alice],
      [alice, bob],
    ] as const) {
      for (const route of routes.filter((r) => paramsOf(r.url).length > 0)) {
        const path = route.url.replace(/:([A-Za-z_]+)/g, (_, name: string) => {
          const id = resourceOf(victim)[name];
          assert.ok(id, `${route.url}: no resource for :${name}; add it to resourceOf`);
          return id;
        });
        for (const method of methodsOf(route)) {
          const key = `${method} ${route.url}`;
          assert.ok(!route.schema?.body || key in BODIES, `${key} takes a body: add a valid one to BODIES`);
          const body = BODIES[key];
          await assert.rejects(
            attacker.integrator.client.request(method, path, body === undefined ? {} : { body }),
            (err: unknown) =>
              err instanceof HeraldApiError &&
              err.status === 404 &&
              (method === 'HEAD' || JSON.stringify(err.body) === '{"error":"not_found","status":404}'),
            key,
          );
          sent++;
        }
      }
    }
    assert.ok(sent >= 2 * 15, `${sent} requests`);
    // Nothing happened to the victim's resources.
    assert.equal((await app.store.deliveries.findById(alice.delivery._id))?.status, 'pending');
    assert.equal(await app.store.deliveries.collection.countDocuments({ attempts: { $exists: true } }), 0);
    assert.equal(await app.store.events.collection.countDocuments({ eventType: 'webhook.test' }), 0);
    for (const owner of [alice, bob]) {
      assert.deepEqual(await app.store.subscriptions.findById(owner.subscription._id), owner.subscription);
      assert.equal(await app.store.subscriptions.keys.countDocuments({ subscriptionId: owner.subscription._id }), 1);
      assert.equal((await app.store.deliveries.findById(owner.delivery._id))?.status, 'pending');
    }
    assert.deepEqual([await campaignHistoryLength(alice), await campaignHistoryLength(bob)], historyBefore);
  });

  it('answers every integrator route without a resource in its path with none of another integrator’s ids', async () => {
    // A third integrator, so that what these requests create changes neither alice's nor bob's listings.
    const carol = await registerIntegrator(app, baseUrl, 'carol');
    const theirs = [alice, bob].flatMap((o) => [
      o.integrator.integratorId,
      o.subscription._id,
      o.delivery._id,
      o.event._id,
      o.campaignId,
      ...(o.event.accountId ? [o.event.accountId] : []),
    ]);
    /** Filters naming alice's resources, for each query parameter that takes one. */
    const filters: Record<string, string> = {
      subscriptionId: alice.subscription._id,
      eventId: alice.event._id,
      accountId: alice.event.accountId ?? '',
    };
    let sent = 0;
    for (const route of routes.filter((r) => paramsOf(r.url).length === 0))
      for (const method of methodsOf(route)) {
        const key = `${method} ${route.url}`;
        assert.ok(!route.schema?.body || key in BODIES, `${key} takes a body: add a valid one to BODIES`);
        const body = BODIES[key];
        const queries = [{}, ...queryKeysOf(route).flatMap((k) => (filters[k] ? [{ [k]: filters[k] }] : []))];
        for (const query of queries) {
          const answer = JSON.stringify(
            await carol.client.request(method, route.url, { query, ...(body === undefined ? {} : { body }) }),
          );
          for (const id of theirs) assert.ok(!answer?.includes(id), `${key} ${JSON.stringify(query)}: ${answer}`);
          sent++;
        }
      }
    assert.ok(sent >= 6, `${sent} requests`);
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
