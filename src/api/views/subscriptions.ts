import type { SigningKeyDoc, SubscriptionDoc } from '../../store/documents.js';
import type { Subscription, SubscriptionKey } from '../schemas/subscriptions.js';

/**
 * The API shape of a subscription. A key's status is read from the subscription's `activeKeyId`, the one reference
 * the worker signs with, so a rotation interrupted between its steps still shows exactly one active key.
 */
export function subscriptionView(doc: SubscriptionDoc, keys: readonly SigningKeyDoc[]): Subscription {
  const active = keys.find((k) => k._id === doc.activeKeyId);
  if (!active) throw new Error(`subscription ${doc._id}: active signing key ${doc.activeKeyId} is missing`);
  return {
    id: doc._id,
    url: doc.url,
    // Stored as 'all' so the meaning is explicit; answered as [] to mirror the request rule "omitted or empty = all".
    eventTypes: doc.eventTypes === 'all' ? [] : [...doc.eventTypes],
    description: doc.description,
    status: doc.status,
    pausedReason: doc.status === 'paused' ? (doc.pausedReason ?? 'manual') : null,
    pausedAt: doc.status === 'paused' && doc.pausedAt ? doc.pausedAt.toISOString() : null,
    ordering: doc.ordering ?? 'none',
    keyId: active._id,
    publicKey: active.publicKey,
    createdAt: doc.createdAt.toISOString(),
    updatedAt: doc.updatedAt.toISOString(),
    keys: keys.map((k) => keyView(doc, k)),
  };
}

/** One signing key of the subscription: active when the subscription signs with it. */
export function keyView(doc: SubscriptionDoc, key: SigningKeyDoc): SubscriptionKey {
  return {
    keyId: key._id,
    publicKey: key.publicKey,
    status: key._id === doc.activeKeyId ? 'active' : 'inactive',
    createdAt: key.createdAt.toISOString(),
  };
}

/** Views of a page of subscriptions, given every key of those subscriptions (any order). */
export function subscriptionViews(docs: readonly SubscriptionDoc[], keys: readonly SigningKeyDoc[]): Subscription[] {
  const bySubscription = new Map<string, SigningKeyDoc[]>();
  for (const key of keys) {
    const list = bySubscription.get(key.subscriptionId);
    if (list) list.push(key);
    else bySubscription.set(key.subscriptionId, [key]);
  }
  return docs.map((doc) => subscriptionView(doc, bySubscription.get(doc._id) ?? []));
}
