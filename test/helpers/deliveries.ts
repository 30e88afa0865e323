import { randomUUID } from 'node:crypto';
import assert from 'node:assert/strict';
import { p256 } from '@noble/curves/nist.js';
import { generateSigningKey, type KeyVault } from '../../src/crypto/key-encryption.js';
import { newEventDoc } from '../../src/domain/event-record.js';
import { jsonTextOf } from '../../src/domain/json-text.js';
import type { LifecycleEventType } from '../../src/domain/event-types.js';
import type { EventDoc, SubscriptionDoc } from '../../src/store/documents.js';
import type { Store } from '../../src/store/index.js';
import { signedInput, WebhookVerifier } from '../../src/receiver/index.js';
import type { RecordedRequest } from './receiver.js';

/** A lifecycle event in its stored form, as ingestion makes it. */
export function lifecycleEvent(integratorId: string, eventType: LifecycleEventType = 'customer.created'): EventDoc {
  const fields = {
    id: randomUUID(),
    eventType,
    occurredAt: new Date(),
    livemode: true,
    payloadVersion: 1,
    integratorId,
    accountId: randomUUID(),
    userId: null,
    entityId: null,
    beneficiaryId: null,
    transactionId: null,
    provider: 'kyc_provider',
    providerEventId: 'prov-1',
    data: jsonTextOf({ note: 'ünïcode ✓', amount: '10.00' }),
  } as const;
  return newEventDoc(fields);
}

/**
 * A subscription stored the way the subscriptions API stores one (sealed key, AAD = subscription id), for tests
 * of the delivery engine that do not go through that API.
 */
export async function seedSubscription(
  store: Store,
  vault: KeyVault,
  fields: Pick<SubscriptionDoc, 'integratorId' | 'url'> & Partial<SubscriptionDoc>,
): Promise<{ subscription: SubscriptionDoc; publicKey: string }> {
  const id = randomUUID();
  const keyId = randomUUID();
  const now = new Date(Date.now() - 1000);
  const key = generateSigningKey();
  await store.subscriptions.keys.insertOne({
    _id: keyId,
    integratorId: fields.integratorId,
    subscriptionId: id,
    publicKey: key.publicKeyHex,
    sealed: vault.seal(key.privateKey, id),
    status: 'active',
    createdAt: now,
    deactivatedAt: null,
  });
  const subscription: SubscriptionDoc = {
    _id: id,
    eventTypes: 'all',
    description: null,
    status: 'enabled',
    activeKeyId: keyId,
    createdAt: now,
    updatedAt: now,
    deletedAt: null,
    ...fields,
  };
  await store.subscriptions.collection.insertOne(subscription);
  await store.subscriptions.index.put(subscription); // as the repository does: ingestion matches through the index
  return { subscription, publicKey: key.publicKeyHex };
}

/** Checks a received delivery with the receiver helper and, independently, with @noble/curves; returns its event. */
export function assertSignedDelivery(request: RecordedRequest, publicKeyHex: string) {
  const event = new WebhookVerifier(publicKeyHex).verify(request.body, request.headers);
  const header = (name: string) => String(request.headers[name]);
  const input = signedInput(
    header('x-service-webhook-delivery-id'),
    header('x-service-webhook-timestamp'),
    request.body,
  );
  const signature = Buffer.from(header('x-service-webhook-signature'), 'hex');
  assert.equal(signature.length, 64);
  assert.ok(p256.verify(signature, input, Buffer.from(publicKeyHex, 'hex'), { lowS: false }), 'noble verifies');
  return event;
}

/** Polls `probe` until it returns a value other than undefined, or fails after `timeoutMs` (naming `what`). */
export async function eventually<T>(
  probe: () => T | undefined | Promise<T | undefined>,
  timeoutMs = 15_000,
  what = 'condition',
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${what} not met within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
