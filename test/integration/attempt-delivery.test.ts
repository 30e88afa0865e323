// The attempt activity on its own, against the real MongoDB-wire server and a real HTTPS receiver on 127.0.0.1.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { createActivities } from '../../activities/index.js';
import { createKeyVault } from '../../src/crypto/key-encryption.js';
import { loadMasterKey } from '../../src/crypto/master-key.js';
import { createWebhookHttpClient } from '../../src/net/http-client.js';
import { callbackUrlPolicyFromConfig } from '../../src/net/policy-from-config.js';
import type { DeliveryDoc, SubscriptionDoc } from '../../src/store/documents.js';
import { createStore } from '../../src/store/index.js';
import { ensureIndexes } from '../../src/store/indexes.js';
import { createMongo } from '../../src/store/mongo.js';
import type { Actor } from '../../src/domain/delivery-vocabulary.js';
import type { AttemptInput } from '../../workflows/types.js';
import { assertSignedDelivery, lifecycleEvent, seedSubscription } from '../helpers/deliveries.js';
import { testConfig } from '../helpers/env.js';
import { startHttpsReceiver, type HttpsReceiver } from '../helpers/receiver.js';

describe('attemptDelivery activity (real MongoDB-wire server, real HTTPS receiver)', () => {
  const config = testConfig({
    HERALD_DNS_STATIC: 'hooks.example.com=127.0.0.1,rebind.example.com=10.0.0.5',
    HERALD_ALLOW_CIDRS: '127.0.0.1/32',
  });
  const mongo = createMongo(config);
  const store = createStore(mongo.db);
  const vault = createKeyVault(loadMasterKey(config).key);
  const http = createWebhookHttpClient({ policy: callbackUrlPolicyFromConfig(config), userAgent: 'Herald-test' });
  // Called outside a worker: every call counts as a retry, so the recorded-attempt check always runs.
  const { attemptDelivery } = createActivities({ store, vault, http, activityAttempt: () => 2 });
  const integratorId = randomUUID();
  let receiver: HttpsReceiver;

  before(async () => {
    await ensureIndexes(mongo.db);
    receiver = await startHttpsReceiver();
  });
  after(async () => {
    await receiver.close();
    await http.close();
    await mongo.db.dropDatabase();
    await mongo.client.close();
  });

  async function newDelivery(
    subscription: Partial<SubscriptionDoc> = {},
    host = 'hooks.example.com',
  ): Promise<{ delivery: DeliveryDoc; publicKey: string; subscription: SubscriptionDoc }> {
    const url = `https://${host}:${receiver.port}/hooks/herald?x=1`;
    const seeded = await seedSubscription(store, vault, { integratorId, url, ...subscription });
    const event = lifecycleEvent(integratorId);
    await store.events.insertOnce(event);
    const delivery = await store.deliveries.createOnce({
      integratorId,
      subscriptionId: seeded.subscription._id,
      eventId: event._id,
      eventType: event.eventType,
    });
    return { delivery, ...seeded };
  }
  /** The workflow's input: followSchedule (default true), or the pre-rule shape `{ retryInSeconds }`. */
  const input = (
    delivery: DeliveryDoc,
    attemptNumber: number,
    more: { actor?: Actor } & ({ followSchedule?: boolean } | { retryInSeconds: number | null }) = {},
  ): AttemptInput => {
    const base = { deliveryId: delivery._id, attemptNumber, actor: 'system' as Actor };
    return 'retryInSeconds' in more ? { ...base, ...more } : { ...base, followSchedule: true, ...more };
  };

  it('signs and POSTs the stored body, records the attempt and marks the delivery succeeded', async () => {
    receiver.respond(() => ({ status: 204 }));
    const { delivery, publicKey, subscription } = await newDelivery();
    const before = receiver.requests.length;
    const result = await attemptDelivery(input(delivery, 1));
    assert.equal(result.outcome, 'succeeded');
    assert.equal(result.deliveryStatus, 'succeeded');
    assert.equal(result.statusCode, 204);

    const request = receiver.requests[before];
    assert.ok(request);
    assert.equal(request.method, 'POST');
    assert.equal(request.url, '/hooks/herald?x=1');
    assert.equal(request.headers['content-type'], 'application/json');
    assert.equal(request.headers['x-service-webhook-delivery-id'], delivery._id);
    assert.equal(request.headers['x-service-webhook-event-id'], delivery.eventId);
    assert.equal(request.headers['x-service-webhook-key-id'], subscription.activeKeyId);
    assert.equal(request.headers['x-service-webhook-algorithm'], 'ECDSA_P256_SHA256');
    const event = await store.events.findById(delivery.eventId);
    assert.equal(request.body.toString('utf8'), event?.body, 'the stored body, byte for byte');
    assert.equal(assertSignedDelivery(request, publicKey).id, delivery.eventId);

    const attempt = await store.deliveries.findAttempt(delivery._id, 1);
    assert.ok(attempt);
    assert.equal(attempt._id, result.attemptId);
    assert.equal(attempt.outcome, 'succeeded');
    assert.equal(attempt.statusCode, 204);
    assert.equal(attempt.address, '127.0.0.1');
    assert.equal(attempt.signingKeyId, subscription.activeKeyId);
    assert.equal(attempt.signedTimestamp, request.headers['x-service-webhook-timestamp']);
    assert.equal(attempt.actor, 'system');
    assert.ok(Number.isInteger(attempt.latencyMs) && attempt.latencyMs >= 0);
    const stored = await store.deliveries.findById(delivery._id);
    assert.equal(stored?.status, 'succeeded');
    assert.equal(stored?.attemptCount, 1);
    assert.equal(stored?.nextAttemptAt, null);
    assert.equal(stored?.terminalReason, null);
    assert.equal(stored?.lastResponseSummary?.status, 204);
  });

  it('is idempotent per attempt number: a retried activity returns the recorded attempt without sending again', async () => {
    receiver.respond(() => ({ status: 200, body: 'ok' }));
    const { delivery } = await newDelivery();
    const first = await attemptDelivery(input(delivery, 1));
    const count = receiver.requests.length;
    const again = await attemptDelivery(input(delivery, 1));
    assert.deepEqual(again, first);
    assert.equal(receiver.requests.length, count);
    assert.deepEqual(Object.keys((await store.deliveries.findById(delivery._id))?.attempts ?? {}), ['1']);
  });

  it('on a retry, writes the effect of an attempt already recorded again, sending nothing', async () => {
    const { delivery, subscription } = await newDelivery();
    const recordedAt = new Date(Date.now() - 5_000);
    // The attempt alone, as if its effect had been lost (one write records both now; the retry must not depend on it).
    await store.deliveries.collection.updateOne(
      { _id: delivery._id },
      {
        $set: {
          'attempts.1': {
            _id: randomUUID(),
            integratorId,
            deliveryId: delivery._id,
            attemptNumber: 1,
            outcome: 'http_error',
            statusCode: 500,
            error: null,
            latencyMs: 12,
            responseSummary: { status: 500, headers: {}, body: 'down', truncated: false },
            signedAt: recordedAt,
            signedTimestamp: String(Math.floor(recordedAt.getTime() / 1000)),
            signingKeyId: subscription.activeKeyId,
            actor: 'system',
            address: '127.0.0.1',
            createdAt: recordedAt,
          },
        },
      },
    );
    const count = receiver.requests.length;
    // An input in the pre-rule shape (a run started before the rule, continued by this worker) settles the same.
    const result = await attemptDelivery(input(delivery, 1, { retryInSeconds: 30 }));
    assert.deepEqual([result.outcome, result.deliveryStatus], ['http_error', 'pending']);
    assert.equal(receiver.requests.length, count, 'not sent again');
    const stored = await store.deliveries.findById(delivery._id);
    assert.equal(stored?.attemptCount, 1);
    assert.equal(stored?.lastResponseSummary?.body, 'down');
    assert.equal(stored?.nextAttemptAt?.getTime(), recordedAt.getTime() + 30_000, 'due 30 s after that attempt');
    const last = await attemptDelivery(input(delivery, 1, { retryInSeconds: null }));
    assert.equal(last.deliveryStatus, 'failed', 'the last attempt ends the delivery even when re-settled');
  });

  it('keeps a failed delivery pending with its next attempt time, then fails it on the last attempt', async () => {
    receiver.respond(() => ({ status: 500, body: 'x'.repeat(10_000) }));
    const { delivery } = await newDelivery();
    const t0 = Date.now();
    const first = await attemptDelivery(input(delivery, 1));
    assert.equal(first.outcome, 'http_error');
    assert.equal(first.deliveryStatus, 'pending');
    assert.equal(first.retryInSeconds, 30, 'the attempt rule answers the wait');
    let stored = await store.deliveries.findById(delivery._id);
    assert.equal(stored?.status, 'pending');
    const due = stored?.nextAttemptAt?.getTime() ?? 0;
    assert.ok(due >= t0 + 30_000 && due <= Date.now() + 30_000, 'next attempt 30 s later');
    assert.equal(stored?.lastResponseSummary?.truncated, true, 'only a bounded part of the body is kept');

    receiver.respond(() => ({ status: 302, headers: { location: 'https://127.0.0.1/' } }));
    const last = await attemptDelivery(input(delivery, 2, { followSchedule: false }));
    assert.equal(last.outcome, 'http_error', 'a redirect is a failure, never followed');
    assert.equal(last.deliveryStatus, 'failed');
    stored = await store.deliveries.findById(delivery._id);
    assert.equal(stored?.status, 'failed');
    assert.equal(stored?.terminalReason, 'retries_exhausted');
    assert.equal(stored?.attemptCount, 2);
    assert.equal(stored?.nextAttemptAt, null);
    const bodies = receiver.requests.filter((r) => r.headers['x-service-webhook-delivery-id'] === delivery._id);
    assert.equal(bodies.length, 2);
    assert.ok(bodies[0]?.body.equals(bodies[1]?.body ?? Buffer.alloc(0)), 'byte-identical across attempts');
  });

  it('blocks a host that resolves to a private address at delivery time without connecting', async () => {
    const { delivery } = await newDelivery({}, 'rebind.example.com');
    const connections = receiver.connections;
    const result = await attemptDelivery(input(delivery, 1));
    assert.equal(result.outcome, 'blocked');
    assert.equal(result.deliveryStatus, 'pending');
    assert.equal(receiver.connections, connections);
    const attempt = await store.deliveries.findAttempt(delivery._id, 1);
    assert.equal(attempt?.address, null);
    // Attempts are shown to the integrator: the error names the rule, never the internal address.
    assert.match(attempt?.error ?? '', /resolves to a non-public address/);
    assert.doesNotMatch(attempt?.error ?? '', /10\.0\.0\.5/);
  });

  it('cancels without a request when the subscription is deleted, or disabled for a scheduled attempt', async () => {
    const count = receiver.requests.length;
    const deleted = await newDelivery({ deletedAt: new Date() });
    const r1 = await attemptDelivery(input(deleted.delivery, 1));
    assert.deepEqual([r1.outcome, r1.deliveryStatus, r1.attemptId], ['cancelled', 'cancelled', null]);
    assert.equal((await store.deliveries.findById(deleted.delivery._id))?.terminalReason, 'subscription_deleted');

    const disabled = await newDelivery({ status: 'disabled' });
    const r2 = await attemptDelivery(input(disabled.delivery, 1));
    assert.equal(r2.outcome, 'cancelled');
    assert.equal((await store.deliveries.findById(disabled.delivery._id))?.terminalReason, 'subscription_disabled');
    assert.equal(receiver.requests.length, count, 'no request made');
    assert.equal((await store.deliveries.findById(disabled.delivery._id))?.attempts, undefined);

    receiver.respond(() => ({ status: 204 }));
    const manual = await newDelivery({ status: 'disabled' });
    const r3 = await attemptDelivery(input(manual.delivery, 1, { actor: 'manual' }));
    assert.equal(r3.outcome, 'succeeded', 'an explicit retry reaches a disabled subscription');
  });

  it('leaves a delivery cancelled while its attempt was in flight cancelled', async () => {
    const { delivery } = await newDelivery();
    receiver.respond(async () => {
      await store.deliveries.cancel(delivery, 'subscription_deleted', new Date());
      return { status: 500 };
    });
    const result = await attemptDelivery(input(delivery, 1));
    assert.equal(result.outcome, 'http_error');
    assert.equal(result.deliveryStatus, 'cancelled');
    const stored = await store.deliveries.findById(delivery._id);
    assert.equal(stored?.status, 'cancelled');
    assert.equal(stored?.attemptCount, 1);
  });

  it('fails for a delivery that does not exist, as a non-retryable DeliveryNotFound', async () => {
    await assert.rejects(
      attemptDelivery({ deliveryId: randomUUID(), attemptNumber: 1, actor: 'system', followSchedule: true }),
      (err: unknown) => err instanceof Error && (err as { type?: string }).type === 'DeliveryNotFound',
    );
  });
});
