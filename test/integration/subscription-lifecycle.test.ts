// Subscriptions after creation, through real HTTP with the signing client on the real MongoDB-wire server: DELETE
// (soft, 404 afterwards, pending deliveries cancelled), key rotation (also concurrent and interrupted), the 404 and
// 400 shapes, and tenant isolation.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { newSigningKey } from '../../src/api/subscription-input.js';
import { buildTestApp, closeTestApp } from '../helpers/app.js';
import { lifecycleEvent } from '../helpers/deliveries.js';
import { listen, registerIntegrator, type TestIntegrator } from '../helpers/integrators.js';
import {
  HOOK_URL,
  rejectsNotFound,
  rejectsWith,
  SUBSCRIPTION_DNS,
  subscriptionRoutesFor,
} from '../helpers/subscriptions.js';

describe('webhook subscriptions API: delete, rotate, not found, tenants', () => {
  let app: FastifyInstance;
  let alice: TestIntegrator;
  let bob: TestIntegrator;

  before(async () => {
    ({ app } = await buildTestApp({ HERALD_DNS_STATIC: SUBSCRIPTION_DNS }));
    const baseUrl = await listen(app);
    alice = await registerIntegrator(app, baseUrl, 'alice');
    bob = await registerIntegrator(app, baseUrl, 'bob');
  });
  after(async () => closeTestApp(app));

  it('DELETE answers 204, then 404 everywhere, and cancels its pending deliveries', async () => {
    const created = await alice.client.createSubscription({ url: HOOK_URL });
    const kept = await alice.client.createSubscription({ url: HOOK_URL });
    const pending = async (subscriptionId: string) => {
      const event = lifecycleEvent(alice.integratorId);
      await app.store.events.insertOnce(event);
      return await app.store.deliveries.createOnce({
        integratorId: alice.integratorId,
        subscriptionId,
        eventId: event._id,
        eventType: event.eventType,
      });
    };
    const [doomed, other] = [await pending(created.id), await pending(kept.id)];

    assert.equal(await alice.client.deleteSubscription(created.id), undefined);
    const cancelled = await app.store.deliveries.findById(doomed._id);
    assert.equal(cancelled?.status, 'cancelled');
    assert.equal(cancelled?.terminalReason, 'subscription_deleted');
    assert.equal(cancelled?.nextAttemptAt, null);
    assert.equal((await app.store.deliveries.findById(other._id))?.status, 'pending', 'other subscriptions untouched');
    assert.ok((await app.store.subscriptions.findById(created.id))?.deletedAt, 'soft-deleted: the record stays');

    for (const call of [
      () => alice.client.getSubscription(created.id),
      () => alice.client.updateSubscription(created.id, { status: 'enabled' }),
      () => alice.client.deleteSubscription(created.id),
      () => alice.client.rotateSubscriptionKey(created.id),
    ]) {
      await rejectsNotFound(call());
    }
    const listed = [];
    for await (const s of alice.client.listSubscriptions()) listed.push(s.id);
    assert.ok(!listed.includes(created.id));
    assert.ok(listed.includes(kept.id));
  });

  it('rotates the key: a new active key, earlier ones kept inactive and listed', async () => {
    const created = await alice.client.createSubscription({ url: HOOK_URL });
    const first = await alice.client.rotateSubscriptionKey(created.id);
    assert.notEqual(first.keyId, created.keyId);
    assert.notEqual(first.publicKey, created.publicKey);
    assert.match(first.publicKey, /^0[23][0-9a-f]{64}$/);
    assert.ok(first.updatedAt >= created.updatedAt);
    const second = await alice.client.rotateSubscriptionKey(created.id);
    assert.deepEqual(
      second.keys.map((k) => [k.keyId, k.publicKey, k.status]),
      [
        [created.keyId, created.publicKey, 'inactive'],
        [first.keyId, first.publicKey, 'inactive'],
        [second.keyId, second.publicKey, 'active'],
      ],
    );
    assert.deepEqual(await alice.client.getSubscription(created.id), second);
    const stored = await app.store.subscriptions.keys.find({ subscriptionId: created.id }).toArray();
    assert.deepEqual(stored.map((k) => k.status).sort(), ['active', 'inactive', 'inactive']);
    assert.ok(stored.filter((k) => k.status === 'inactive').every((k) => k.deactivatedAt instanceof Date));
    assert.equal((await app.store.subscriptions.findById(created.id))?.activeKeyId, second.keyId);
  });

  it('a rotation that lost a race replaces the key that won it, not the one it first saw', async () => {
    const created = await alice.client.createSubscription({ url: HOOK_URL });
    const repo = app.store.subscriptions;
    const stale = (await repo.findById(created.id))!;
    const first = await repo.rotateKey(stale, newSigningKey(app.vault, stale._id));
    // `stale` still names the original key as active: the conditional update misses and is retried.
    const second = await repo.rotateKey(stale, newSigningKey(app.vault, stale._id));
    assert.ok(first && second);
    const status = async (id: string) => (await repo.findKey(id))?.status;
    assert.equal(await status(stale.activeKeyId), 'inactive');
    assert.equal(await status(first.activeKeyId), 'inactive', 'the winner of the race was replaced in turn');
    assert.equal(await status(second.activeKeyId), 'active');
    assert.equal((await repo.findById(created.id))?.activeKeyId, second.activeKeyId);
  });

  it('shows and uses exactly one active key under concurrent rotations and after an interrupted one', async () => {
    const created = await alice.client.createSubscription({ url: HOOK_URL });
    const repo = app.store.subscriptions;
    const stale = (await repo.findById(created.id))!;
    const results = await Promise.all([1, 2, 3].map(() => repo.rotateKey(stale, newSigningKey(app.vault, stale._id))));
    const activeKeyId = (await repo.findById(created.id))!.activeKeyId;
    assert.ok(results.some((r) => r?.activeKeyId === activeKeyId));
    assert.equal((await repo.findKey(activeKeyId))?.status, 'active');
    const listed = async () => {
      const view = await alice.client.getSubscription(created.id);
      assert.equal(view.keyId, activeKeyId);
      assert.deepEqual(
        view.keys.filter((k) => k.status === 'active').map((k) => k.keyId),
        [activeKeyId],
      );
      return view.keys.length;
    };
    assert.equal(await listed(), 4, 'the original key and the three new ones');
    // A rotation that stopped right after inserting its key: stored as active, referenced by nothing, never used.
    const orphan = randomUUID();
    await repo.collection.updateOne({ _id: created.id }, { $push: { keyIds: orphan } });
    await repo.keys.insertOne({ ...(await repo.findKey(activeKeyId))!, _id: orphan, createdAt: new Date() });
    assert.equal(await listed(), 5);
  });

  it('answers 404 with the bare not-found body for unknown ids and 400 for malformed ones', async () => {
    const unknown = randomUUID();
    const testPath = (id: string) => `/v1/webhooks/subscriptions/${encodeURIComponent(id)}/test`;
    const routes: Array<[string, string, unknown]> = [
      ...subscriptionRoutesFor(unknown),
      ['POST', testPath(unknown), undefined],
    ];
    for (const [method, path, body] of routes) {
      await rejectsNotFound(alice.client.request(method, path, { body }), `${method} ${path}`);
    }
    for (const bad of ['not-a-uuid', '123', `${unknown}x`, unknown.toUpperCase().replace(/-/g, '')]) {
      for (const [method, path, body] of subscriptionRoutesFor(bad)) {
        await rejectsWith(alice.client.request(method, path, { body }), 400, 'invalid_request', /subscription_id/);
      }
      // The test endpoint answers a malformed id as §4.2 says for an unknown subscription: 404.
      await rejectsNotFound(alice.client.request('POST', testPath(bad)), `POST ${testPath(bad)}`);
    }
  });

  it("keeps integrators apart: another integrator's subscription is 404 on every route and never listed", async () => {
    const own = await alice.client.createSubscription({ url: HOOK_URL, description: 'alice only' });
    for (const [method, path, body] of subscriptionRoutesFor(own.id)) {
      await rejectsNotFound(bob.client.request(method, path, { body }), `${method} ${path}`);
    }
    assert.deepEqual(await alice.client.getSubscription(own.id), own, 'nothing changed, nothing deleted or rotated');
    for await (const s of bob.client.listSubscriptions()) assert.notEqual(s.id, own.id);
  });
});
