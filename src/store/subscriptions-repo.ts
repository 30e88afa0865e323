import type { Db } from 'mongodb';
import { isSubscribable } from '../domain/event-types.js';
import type { EventDoc, SigningKeyDoc, SubscriptionDoc } from './documents.js';

/** Webhook subscriptions and their signing keys. */
export function createSubscriptionsRepo(db: Db) {
  const subscriptions = db.collection<SubscriptionDoc>('subscriptions');
  const keys = db.collection<SigningKeyDoc>('signing_keys');

  return {
    collection: subscriptions,
    keys,

    /** By id, deleted ones included, across integrators: for the worker. */
    async findById(id: string): Promise<SubscriptionDoc | null> {
      return await subscriptions.findOne({ _id: id });
    },

    /** The integrator's subscription unless deleted: what every integrator route may see. */
    async findLive(integratorId: string, id: string): Promise<SubscriptionDoc | null> {
      return await subscriptions.findOne({ _id: id, integratorId, deletedAt: null });
    },

    async findKey(keyId: string): Promise<SigningKeyDoc | null> {
      return await keys.findOne({ _id: keyId });
    },

    /**
     * The fan-out targets of a lifecycle event: the integrator's enabled, live subscriptions to its type that
     * existed when the event was stored (a subscription made later does not receive older events).
     */
    async findMatching(event: Pick<EventDoc, 'integratorId' | 'eventType' | 'createdAt'>): Promise<SubscriptionDoc[]> {
      // History-only types (customer.deleted, …) and webhook.test are not subscribable: nobody receives them.
      if (!isSubscribable(event.eventType)) return [];
      return await subscriptions
        .find({
          integratorId: event.integratorId,
          status: 'enabled',
          deletedAt: null,
          createdAt: { $lte: event.createdAt },
          eventTypes: { $in: ['all', event.eventType] },
        })
        .toArray();
    },
  };
}

export type SubscriptionsRepo = ReturnType<typeof createSubscriptionsRepo>;
