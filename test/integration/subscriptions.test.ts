// Subscriptions through real HTTP with the signing client, on the real MongoDB-wire server: create and its rules
// (eventTypes, body, every callback-URL rule), listing, PATCH and its re-validation. DELETE, rotation, 404/400 and
// tenant isolation: subscription-lifecycle.test.ts.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { HeraldClient, type Subscription } from '../../src/client/herald-client.js';
import { subscribableEventTypes } from '../../src/domain/event-types.js';
import { buildTestApp, closeTestApp } from '../helpers/app.js';
import { listen, registerIntegrator, type TestIntegrator } from '../helpers/integrators.js';
import { HOOK_URL as URL_A, rejectsWith, SUBSCRIPTION_DNS, UUID_V4, UUID_V5 } from '../helpers/subscriptions.js';

interface OpenApi {
  paths: Record<string, Record<string, { security?: unknown; responses: Record<string, unknown> }> | undefined>;
  components: { schemas: Record<string, { required?: string[]; additionalProperties?: boolean } | undefined> };
}

describe('webhook subscriptions API: create, list, update', () => {
  let app: FastifyInstance;
  let baseUrl: string;
  let alice: TestIntegrator;
  let bob: TestIntegrator;
  const counts = async () => ({
    subscriptions: await app.store.subscriptions.collection.countDocuments({}),
    keys: await app.store.subscriptions.keys.countDocuments({}),
  });

  before(async () => {
    ({ app } = await buildTestApp({ HERALD_DNS_STATIC: SUBSCRIPTION_DNS }));
    baseUrl = await listen(app);
    alice = await registerIntegrator(app, baseUrl, 'alice');
    bob = await registerIntegrator(app, baseUrl, 'bob');
  });
  after(async () => closeTestApp(app));

  it('creates a subscription with its active P-256 key, normalises the URL, and reads it back', async () => {
    const created = await alice.client.createSubscription({ url: 'https://HOOKS.Example.COM:443/Herald?a=1' });
    // The client sends an Idempotency-Key, so the id is derived from it (v5); without a key it is random (v4).
    assert.match(created.id, UUID_V5);
    assert.equal(created.url, 'https://hooks.example.com/Herald?a=1');
    assert.deepEqual(created.eventTypes, [], 'omitted = all, shown as []');
    assert.equal(created.description, null);
    assert.equal(created.status, 'enabled');
    assert.match(created.keyId, UUID_V4);
    assert.match(created.publicKey, /^0[23][0-9a-f]{64}$/);
    assert.equal(created.createdAt, created.updatedAt);
    assert.deepEqual(created.keys, [
      { keyId: created.keyId, publicKey: created.publicKey, status: 'active', createdAt: created.createdAt },
    ]);
    assert.deepEqual(await alice.client.getSubscription(created.id), created);
    const stored = await app.store.subscriptions.findById(created.id);
    assert.equal(stored?.eventTypes, 'all');
    assert.equal(stored?.integratorId, alice.integratorId);
  });

  it('answers 201 with a Location header', async () => {
    const seen: Response[] = [];
    const client = new HeraldClient({
      baseUrl,
      privateKey: alice.privateKey,
      fetch: async (input, init) => {
        const res = await fetch(input, init);
        seen.push(res.clone());
        return res;
      },
    });
    const created = await client.createSubscription({ url: URL_A, description: 'ops' });
    assert.equal(created.description, 'ops');
    assert.equal(seen[0]?.status, 201);
    assert.equal(seen[0]?.headers.get('location'), `/v1/webhooks/subscriptions/${created.id}`);
    const unsigned = await fetch(`${baseUrl}/v1/webhooks/subscriptions/${created.id}`);
    assert.equal(unsigned.status, 401, 'unsigned requests are refused');
  });

  it('shows the routes, shapes and security in the OpenAPI document', async () => {
    const doc = (await app.inject({ method: 'GET', url: '/openapi.json' })).json<OpenApi>();
    const item = doc.paths['/v1/webhooks/subscriptions/{subscription_id}'];
    assert.deepEqual(Object.keys(item ?? {}).sort(), ['delete', 'get', 'patch']);
    for (const op of [doc.paths['/v1/webhooks/subscriptions']?.post, item?.patch, item?.delete]) {
      assert.deepEqual(op?.security, [{ pubkey: [], timestamp: [], signature: [] }]);
    }
    assert.ok(doc.paths['/v1/webhooks/subscriptions/{subscription_id}/rotate-key']?.post?.responses['201']);
    for (const action of ['pause', 'resume']) {
      const op = doc.paths[`/v1/webhooks/subscriptions/{subscription_id}/${action}`]?.post;
      assert.ok(op?.responses['200'] && op.responses['409'], action);
      assert.deepEqual(op.security, [{ pubkey: [], timestamp: [], signature: [] }], action);
    }
    const schemas = doc.components.schemas;
    assert.deepEqual(schemas.Subscription?.required?.sort(), [
      'createdAt',
      'description',
      'eventTypes',
      'id',
      'keyId',
      'keys',
      'ordering',
      'pausedAt',
      'pausedReason',
      'publicKey',
      'status',
      'updatedAt',
      'url',
    ]);
    assert.equal(schemas.CreateSubscription?.additionalProperties, false);
    assert.deepEqual(schemas.CreateSubscription?.required, ['url']);
    // The spec's subscribable enum and Herald's own, side by side (test/integration/operational-event-opt-in.test.ts).
    const body = JSON.stringify(schemas.CreateSubscription);
    for (const id of ['SubscribableEventType', 'HeraldEventType'])
      assert.ok(body.includes(`"#/components/schemas/${id}"`), `eventTypes refers to ${id}`);
    const spec = JSON.stringify(schemas.SubscribableEventType);
    assert.ok(spec.includes('customer.awaiting_information') && !spec.includes('webhook.'));
  });

  it('keeps the subscribable types as given, and refuses duplicates and other types naming the value', async () => {
    const created = await alice.client.createSubscription({
      url: URL_A,
      eventTypes: ['transaction.completed', 'customer.awaiting_information'],
    });
    assert.deepEqual(created.eventTypes, ['transaction.completed', 'customer.awaiting_information']);
    const all = await alice.client.createSubscription({ url: URL_A, eventTypes: [...subscribableEventTypes] });
    assert.deepEqual(all.eventTypes, subscribableEventTypes);
    assert.deepEqual((await alice.client.createSubscription({ url: URL_A, eventTypes: [] })).eventTypes, []);

    const before = await counts();
    const refused: Array<[unknown[], RegExp]> = [
      [['customer.created', 'webhook.test'], /eventTypes\.1: "webhook\.test" is not a subscribable event type/],
      [['customer.created', 'x', 'customer.deleted'], /eventTypes\.2: "customer\.deleted" is not a subscribable/],
      [['transaction.withdrawal_initiated'], /eventTypes\.0: "transaction\.withdrawal_initiated" is not/],
      [['customer.unknown'], /"customer\.unknown" is not a subscribable event type/],
      [['CUSTOMER.CREATED'], /"CUSTOMER\.CREATED" is not/],
      [[42], /eventTypes\.0: 42 is not a subscribable event type/],
      [['transaction.completed', 'customer.active', 'transaction.completed'], /eventTypes: must not repeat an event/],
    ];
    for (const [eventTypes, message] of refused) {
      await rejectsWith(
        alice.client.request('POST', '/v1/webhooks/subscriptions', { body: { url: URL_A, eventTypes } }),
        400,
        'invalid_request',
        message,
      );
    }
    assert.deepEqual(await counts(), before, 'nothing written');
  });

  it('refuses unknown fields, a long description and a missing url', async () => {
    const post = (body: unknown) => alice.client.request('POST', '/v1/webhooks/subscriptions', { body });
    await rejectsWith(post({ url: URL_A, secret: 'x' }), 400, 'invalid_request', /secret/);
    await rejectsWith(post({ url: URL_A, description: 'd'.repeat(257) }), 400, 'invalid_request', /description/);
    await rejectsWith(post({ eventTypes: [] }), 400, 'invalid_request', /url/);
    await rejectsWith(post({ url: 42 }), 400, 'invalid_request', /url/);
    assert.equal(
      (await alice.client.createSubscription({ url: URL_A, description: 'd'.repeat(256) })).status,
      'enabled',
    );
  });

  it('refuses each callback-URL rule with invalid_callback_url naming it, before writing anything', async () => {
    const before = await counts();
    const cases: Array<[string, string]> = [
      ['http://hooks.example.com/', 'https_required'],
      ['hooks.example.com/x', 'not_a_url'],
      [`https://hooks.example.com/${'a'.repeat(2100)}`, 'too_long'],
      ['https://user:pw@hooks.example.com/', 'credentials_not_allowed'],
      ['https://hooks.example.com/#x', 'fragment_not_allowed'],
      ['https://0x7f000001/', 'ip_literal_not_allowed'],
      ['https://[::ffff:10.0.0.1]/', 'ip_literal_not_allowed'],
      ['https://localhost./', 'internal_hostname'],
      ['https://metadata.google.internal/', 'internal_hostname'],
      ['https://under_score.example.com/', 'invalid_hostname'],
      ['https://hooks.example.com:0/', 'invalid_port'],
      ['https://no-such-host.example.com/', 'non_public_address'],
      ['https://hooks.example.com\\@127.0.0.1/hook', 'ambiguous_url'],
      ['https://hooks.example.com\t/', 'not_a_url'],
      ['https://rebind.example.com/', 'non_public_address'],
    ];
    for (const [url, rule] of cases) {
      await rejectsWith(
        alice.client.createSubscription({ url }),
        400,
        'invalid_callback_url',
        new RegExp(`^${rule}: .{10,}`),
      );
    }
    assert.deepEqual(await counts(), before);
  });

  it('lists newest first in keyset pages, by status, following cursors; a foreign or altered cursor is a 400', async () => {
    const carol = await registerIntegrator(app, baseUrl, 'carol');
    const made: Subscription[] = [];
    for (let i = 0; i < 7; i++) made.push(await carol.client.createSubscription({ url: `${URL_A}/${i}` }));
    await carol.client.updateSubscription(made[2]!.id, { status: 'disabled' });
    await carol.client.deleteSubscription(made[4]!.id);
    const expected = made
      .filter((_, i) => i !== 4)
      .reverse()
      .map((s) => s.id);

    const first = await carol.client.listSubscriptionsPage({ limit: 4 });
    assert.equal(first.subscriptions.length, 4);
    assert.ok(first.nextCursor);
    const second = await carol.client.listSubscriptionsPage({ limit: 4, cursor: first.nextCursor });
    assert.equal(second.nextCursor, null);
    assert.deepEqual(
      [...first.subscriptions, ...second.subscriptions].map((s) => s.id),
      expected,
    );
    assert.equal(second.subscriptions.find((s) => s.id === made[0]!.id)?.keys.length, 1, 'keys in listings too');

    const streamed: string[] = [];
    for await (const s of carol.client.listSubscriptions({ limit: 2 })) streamed.push(s.id);
    assert.deepEqual(streamed, expected);
    const disabled = await carol.client.listSubscriptionsPage({ status: 'disabled' });
    assert.deepEqual(
      disabled.subscriptions.map((s) => s.id),
      [made[2]!.id],
    );
    const enabled = await carol.client.listSubscriptionsPage({ status: 'enabled', limit: 250 });
    assert.equal(enabled.subscriptions.length, 5);

    await rejectsWith(
      carol.client.listSubscriptionsPage({ status: 'enabled', cursor: first.nextCursor }),
      400,
      'invalid_cursor',
    );
    await rejectsWith(bob.client.listSubscriptionsPage({ cursor: first.nextCursor }), 400, 'invalid_cursor');
    for (const query of [{ limit: 0 }, { limit: 251 }, { status: 'deleted' }, { other: 1 }]) {
      await rejectsWith(carol.client.request('GET', '/v1/webhooks/subscriptions', { query }), 400, 'invalid_request');
    }
  });

  it('PATCH changes each field, bumps updatedAt, re-applies the URL rules and needs one field', async () => {
    const created = await alice.client.createSubscription({ url: URL_A, eventTypes: ['customer.created'] });
    await new Promise((r) => setTimeout(r, 5));
    const patched = await alice.client.updateSubscription(created.id, {
      url: 'https://OTHER.example.com/new',
      eventTypes: ['transaction.completed'],
      description: 'payments',
      status: 'disabled',
    });
    assert.equal(patched.url, 'https://other.example.com/new');
    assert.deepEqual(patched.eventTypes, ['transaction.completed']);
    assert.equal(patched.description, 'payments');
    assert.equal(patched.status, 'disabled');
    assert.equal(patched.createdAt, created.createdAt);
    assert.ok(patched.updatedAt > created.updatedAt);
    assert.equal(patched.keyId, created.keyId);

    const cleared = await alice.client.updateSubscription(created.id, { eventTypes: [], description: null });
    assert.deepEqual(cleared.eventTypes, []);
    assert.equal(cleared.description, null);
    assert.equal((await app.store.subscriptions.findById(created.id))?.eventTypes, 'all');

    const patch = (body: unknown) =>
      alice.client.request('PATCH', `/v1/webhooks/subscriptions/${created.id}`, { body });
    await rejectsWith(patch({ url: 'https://rebind.example.com/x' }), 400, 'invalid_callback_url', /^non_public/);
    await rejectsWith(patch({ url: 'https://10.0.0.5/x' }), 400, 'invalid_callback_url', /^ip_literal_not_allowed/);
    await rejectsWith(patch({}), 400, 'invalid_request', /at least one/);
    await rejectsWith(patch({ keyId: randomUUID() }), 400, 'invalid_request');
    await rejectsWith(patch({ status: 'deleted' }), 400, 'invalid_request');
    await rejectsWith(patch({ eventTypes: ['webhook.test'] }), 400, 'invalid_request', /webhook\.test/);
    assert.deepEqual(await alice.client.getSubscription(created.id), cleared, 'refused PATCHes changed nothing');
  });

  it('PATCH refuses a URL whose host now resolves to a private address', async () => {
    const created = await alice.client.createSubscription({ url: URL_A });
    // A second API instance over the same database, whose DNS now answers 10.0.0.5 for the same host. It is closed,
    // not dropped: the database is this file's.
    const { app: rebound } = await buildTestApp({
      MONGODB_DB: app.config.MONGODB_DB,
      HERALD_MASTER_KEY: app.config.HERALD_MASTER_KEY ?? '',
      HERALD_DNS_STATIC: 'hooks.example.com=10.0.0.5',
    });
    try {
      const viaRebound = new HeraldClient({ baseUrl: await listen(rebound), privateKey: alice.privateKey });
      await rejectsWith(
        viaRebound.updateSubscription(created.id, { url: URL_A }),
        400,
        'invalid_callback_url',
        /^non_public_address: the callback host hooks\.example\.com does not resolve to a public address$/,
      );
      assert.equal((await viaRebound.getSubscription(created.id)).updatedAt, created.updatedAt, 'unchanged');
      // The same PATCH signed in the same second would be a replay now that instances share the replay store.
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      // The first instance, whose DNS still answers a public address, accepts the same URL.
      assert.equal((await alice.client.updateSubscription(created.id, { url: URL_A })).url, URL_A);
    } finally {
      await rebound.close();
    }
  });
});
