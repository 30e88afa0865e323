// A subscription's `ordering` (fifo | none) through the API, the client, the store, the OpenAPI document and the CLI:
// created, read, changed, refused. What fifo does to deliveries is tested by delivery-fifo*.test.ts.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { Subscription } from '../../src/client/herald-client.js';
import { HeraldApiError } from '../../src/client/http.js';
import { buildTestApp, closeTestApp } from '../helpers/app.js';
import { cli, type CliRun } from '../helpers/cli.js';
import { ADMIN_TOKEN, listen, registerIntegrator, type TestIntegrator } from '../helpers/integrators.js';
import { HOOK_URL, rejectsWith, SUBSCRIPTION_DNS } from '../helpers/subscriptions.js';

const SUBSCRIPTIONS = '/v1/webhooks/subscriptions';

interface OpenApi {
  components: {
    schemas: Record<
      string,
      { required?: string[]; enum?: string[]; properties?: Record<string, { description?: string }> } | undefined
    >;
  };
}

describe('subscription ordering: fifo | none', () => {
  let app: FastifyInstance;
  let baseUrl: string;
  let alice: TestIntegrator;
  const stored = async (id: string) => await app.store.subscriptions.findById(id);
  const indexed = async (id: string) => (await app.store.subscriptions.index.entries(alice.integratorId))[id];
  const count = async () => await app.store.subscriptions.collection.countDocuments({});

  before(async () => {
    ({ app } = await buildTestApp({ HERALD_DNS_STATIC: SUBSCRIPTION_DNS }));
    baseUrl = await listen(app);
    alice = await registerIntegrator(app, baseUrl, 'alice');
  });
  after(async () => closeTestApp(app));

  it('creates a fifo subscription (201) that every read answers as fifo, stored and indexed as fifo', async () => {
    const created = await alice.client.createSubscription({ url: HOOK_URL, ordering: 'fifo' });
    assert.equal(created.ordering, 'fifo');
    assert.equal((await alice.client.getSubscription(created.id)).ordering, 'fifo');
    const listed = (await alice.client.listSubscriptionsPage({ limit: 250 })).subscriptions;
    assert.equal(listed.find((s) => s.id === created.id)?.ordering, 'fifo');
    assert.equal((await stored(created.id))?.ordering, 'fifo');
    assert.equal((await indexed(created.id))?.ordering, 'fifo', 'the fan-out sees it');
    // Other changes keep it.
    const rotated = await alice.client.rotateSubscriptionKey(created.id);
    assert.equal(rotated.ordering, 'fifo');
    assert.equal((await alice.client.updateSubscription(created.id, { description: 'x' })).ordering, 'fifo');
  });

  it('answers none for a subscription created without ordering, and for a record without the field', async () => {
    const created = await alice.client.createSubscription({ url: HOOK_URL });
    assert.equal(created.ordering, 'none');
    assert.equal((await alice.client.getSubscription(created.id)).ordering, 'none');
    assert.equal((await stored(created.id))?.ordering, undefined, 'absent = none');
    assert.equal((await indexed(created.id))?.ordering, undefined);
    const explicit = await alice.client.createSubscription({ url: HOOK_URL, ordering: 'none' });
    assert.equal(explicit.ordering, 'none');
  });

  it('PATCH switches none → fifo → none; each read and the index follow', async () => {
    const created = await alice.client.createSubscription({ url: HOOK_URL });
    const fifo = await alice.client.updateSubscription(created.id, { ordering: 'fifo' });
    assert.equal(fifo.ordering, 'fifo');
    assert.equal(fifo.url, created.url, 'nothing else changed');
    assert.deepEqual(await alice.client.getSubscription(created.id), fifo);
    assert.equal((await indexed(created.id))?.ordering, 'fifo');
    const none = await alice.client.updateSubscription(created.id, { ordering: 'none' });
    assert.equal(none.ordering, 'none');
    assert.equal((await alice.client.getSubscription(created.id)).ordering, 'none');
    assert.equal((await indexed(created.id))?.ordering, undefined, 'the index entry says none by leaving it out');
  });

  it('refuses another value with 400 invalid_request in the error shape, writing nothing', async () => {
    const target = await alice.client.createSubscription({ url: HOOK_URL, ordering: 'fifo' });
    const before = await count();
    const post = (ordering: unknown) =>
      alice.client.request('POST', SUBSCRIPTIONS, { body: { url: HOOK_URL, ordering } });
    const patch = (ordering: unknown) =>
      alice.client.request('PATCH', `${SUBSCRIPTIONS}/${target.id}`, { body: { ordering } });
    for (const bad of ['lifo', 1, null, 'FIFO'])
      for (const send of [post, patch])
        await assert.rejects(send(bad), (err: unknown) => {
          assert.ok(err instanceof HeraldApiError, String(err));
          assert.equal(err.status, 400);
          assert.deepEqual(Object.keys(err.body ?? {}).sort(), ['error', 'message', 'status'], 'the error shape (§7)');
          assert.deepEqual([err.body?.error, err.body?.status], ['invalid_request', 400]);
          assert.match(err.body?.message ?? '', /ordering/);
          return true;
        });
    assert.equal(await count(), before, 'no subscription made');
    assert.deepEqual(await alice.client.getSubscription(target.id), target, 'unchanged');
  });

  it('keeps an Idempotency-Key create to one fifo subscription, replayed as it was answered', async () => {
    const key = randomUUID();
    const body = { url: `${HOOK_URL}/idem-ordering`, ordering: 'fifo' };
    const first = await alice.client.request<Subscription>('POST', SUBSCRIPTIONS, { body, idempotencyKey: key });
    const again = await alice.client.request<Subscription>('POST', SUBSCRIPTIONS, { body, idempotencyKey: key });
    assert.equal(first.ordering, 'fifo');
    assert.deepEqual(again, first);
    const other = alice.client.request('POST', SUBSCRIPTIONS, {
      body: { ...body, ordering: 'none' },
      idempotencyKey: key,
    });
    await rejectsWith(other, 422, 'idempotency_key_reused');
    const made = (await alice.client.listSubscriptionsPage({ limit: 250 })).subscriptions;
    assert.equal(made.filter((s) => s.url === body.url).length, 1);
  });

  it('declares SubscriptionOrdering in the OpenAPI document: always in a Subscription, optional on create', async () => {
    const schemas = (await app.inject({ method: 'GET', url: '/openapi.json' })).json<OpenApi>().components.schemas;
    assert.deepEqual(schemas.SubscriptionOrdering?.enum, ['fifo', 'none']);
    assert.ok(schemas.Subscription?.required?.includes('ordering'));
    assert.equal(schemas.CreateSubscription?.properties?.ordering?.description, 'omitted: none');
    assert.ok(!schemas.CreateSubscription?.required?.includes('ordering'));
    assert.ok(schemas.UpdateSubscription?.properties?.ordering);
  });

  it('herald subscriptions create|update --ordering fifo|none, shown in the output; another value is exit 2', async () => {
    const env = {
      HERALD_URL: baseUrl,
      HERALD_ADMIN_TOKEN: ADMIN_TOKEN,
      HERALD_PRIVATE_KEY: alice.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    };
    const ok = (r: CliRun): string => {
      assert.equal(r.code, 0, r.stderr);
      return r.stdout;
    };
    const created = ok(await cli(env, ['subscriptions', 'create', '--url', HOOK_URL, '--ordering', 'fifo']));
    assert.match(created, /^ordering:\s+fifo \(in order, one at a time\)$/m);
    const id = /^id:\s+(\S+)$/m.exec(created)![1]!;
    assert.equal((await alice.client.getSubscription(id)).ordering, 'fifo');
    const updated = JSON.parse(ok(await cli(env, ['subscriptions', 'update', id, '--ordering', 'none', '--json'])));
    assert.equal((updated as Subscription).ordering, 'none');
    assert.match(ok(await cli(env, ['subscriptions', 'get', id])), /^ordering:\s+none \(any order\)$/m);
    const plain = ok(await cli(env, ['subscriptions', 'create', '--url', HOOK_URL]));
    assert.match(plain, /^ordering:\s+none/m);

    const before = await count();
    for (const argv of [
      ['subscriptions', 'create', '--url', HOOK_URL, '--ordering', 'lifo'],
      ['subscriptions', 'update', id, '--ordering', 'FIFO'],
    ]) {
      const bad = await cli(env, argv);
      assert.equal(bad.code, 2, bad.stderr);
      assert.match(bad.stderr, /--ordering must be fifo or none/);
    }
    assert.equal(await count(), before);
    assert.equal((await alice.client.getSubscription(id)).ordering, 'none');
    assert.match(ok(await cli(env, ['subscriptions', 'create', '--help'])), /--ordering <fifo\|none>/);
  });
});
