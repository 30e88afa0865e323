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
      await app.store.events.insert(event);
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

  it('serialises concurrent rotations and shows one active key whatever step a rotation stopped at', async () => {
    const created = await alice.client.createSubscription({ url: HOOK_URL });
    const repo = app.store.subscriptions;
    const stale = (await repo.findById(created.id))!;
    const results = await Promise.all([1, 2, 3].map(() => repo.rotateKey(stale, newSigningKey(app.vault, stale._id))));
    const stored = await repo.keys.find({ subscriptionId: created.id }).toArray();
    const active = stored.filter((k) => k.status === 'active');
    assert.equal(active.length, 1, 'every replaced key was marked inactive');
    assert.equal((await repo.findById(created.id))?.activeKeyId, active[0]?._id);
    assert.ok(results.some((r) => r?.activeKeyId === active[0]?._id));

    // A rotation that stopped after inserting its key: that key is active in storage but referenced by nothing.
    await repo.keys.insertOne({ ...active[0]!, _id: randomUUID(), createdAt: new Date() });
    const view = await alice.client.getSubscription(created.id);
    assert.deepEqual(
      view.keys.filter((k) => k.status === 'active').map((k) => k.keyId),
      [active[0]?._id],
    );
    assert.equal(view.keyId, active[0]?._id);
  });

  it('answers 404 with the bare not-found body for unknown ids and 400 for malformed ones', async () => {
    const unknown = randomUUID();
    for (const [method, path, body] of subscriptionRoutesFor(unknown)) {
      await rejectsNotFound(alice.client.request(method, path, { body }), `${method} ${path}`);
    }
    for (const bad of ['not-a-uuid', '123', `${unknown}x`, unknown.toUpperCase().replace(/-/g, '')]) {
      for (const [method, path, body] of subscriptionRoutesFor(bad)) {
        await rejectsWith(alice.client.request(method, path, { body }), 400, 'invalid_request', /subscription_id/);
      }
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
