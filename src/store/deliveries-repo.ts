import { randomUUID } from 'node:crypto';
import type { Db } from 'mongodb';
import { isDuplicateKey } from './integrators-repo.js';
import type { AttemptDoc, DeliveryDoc } from './documents.js';

/** Deliveries (one per event and subscription) and their attempts. */
export function createDeliveriesRepo(db: Db) {
  const deliveries = db.collection<DeliveryDoc>('deliveries');
  const attempts = db.collection<AttemptDoc>('attempts');

  return {
    collection: deliveries,
    attempts,

    /**
     * The delivery of this event to this subscription, created on the first call: the unique (eventId,
     * subscriptionId) index makes a repeated or concurrent hand-off find the one record instead of a second.
     */
    async createOnce(
      fields: Pick<DeliveryDoc, 'integratorId' | 'subscriptionId' | 'eventId' | 'eventType'>,
      now = new Date(),
    ): Promise<DeliveryDoc> {
      const doc: DeliveryDoc = {
        _id: randomUUID(),
        ...fields,
        status: 'pending',
        attemptCount: 0,
        createdAt: now,
        updatedAt: now,
        nextAttemptAt: now,
        terminalReason: null,
        lastResponseSummary: null,
      };
      try {
        await deliveries.insertOne(doc);
        return doc;
      } catch (err) {
        if (!isDuplicateKey(err)) throw err;
        const existing = await deliveries.findOne({ eventId: fields.eventId, subscriptionId: fields.subscriptionId });
        if (!existing) throw err;
        return existing;
      }
    },

    async findById(id: string): Promise<DeliveryDoc | null> {
      return await deliveries.findOne({ _id: id });
    },

    /**
     * Marks a subscription's pending deliveries cancelled (terminal); returns their ids so their workflows can be
     * woken to end. An attempt already running records its own outcome but leaves a cancelled status alone.
     */
    async cancelPendingOf(subscriptionId: string, terminalReason: string): Promise<string[]> {
      const pending = await deliveries
        .find({ subscriptionId, status: 'pending' }, { projection: { _id: 1 } })
        .map((d) => d._id)
        .toArray();
      if (pending.length === 0) return [];
      const now = new Date();
      await deliveries.updateMany(
        { _id: { $in: pending }, status: 'pending' },
        { $set: { status: 'cancelled', terminalReason, nextAttemptAt: null, updatedAt: now } },
      );
      return pending;
    },
  };
}

export type DeliveriesRepo = ReturnType<typeof createDeliveriesRepo>;
