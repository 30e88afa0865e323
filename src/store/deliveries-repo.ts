import { randomUUID } from 'node:crypto';
import type { Db, Filter } from 'mongodb';
import { after, newestFirst, type Position } from './cursor.js';
import { isDuplicateKey } from './integrators-repo.js';
import { ownedBy } from './owned.js';
import type { AttemptDoc, DeliveryDoc } from './documents.js';
import { terminalStatuses, type DeliveryStatus, type TerminalReason } from '../domain/delivery-vocabulary.js';

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

    async findForIntegrator(integratorId: string, id: string): Promise<DeliveryDoc | null> {
      return ownedBy(integratorId, await deliveries.findOne({ _id: id }));
    },

    /** A page of the integrator's deliveries, newest first, after `position` (keyset); `limit + 1` to detect more. */
    async list(
      integratorId: string,
      filters: Partial<Pick<DeliveryDoc, 'subscriptionId' | 'eventId' | 'status'>>,
      position: Position | null,
      limit: number,
    ): Promise<DeliveryDoc[]> {
      const query: Filter<DeliveryDoc> = {
        integratorId,
        ...filters,
        ...(position ? after<DeliveryDoc>(position) : {}),
      };
      return await deliveries.find(query).sort(newestFirst).limit(limit).toArray();
    },

    async findAttempt(deliveryId: string, attemptNumber: number): Promise<AttemptDoc | null> {
      return await attempts.findOne({ deliveryId, attemptNumber });
    },

    /** The highest recorded attempt number (0 when none): a new run numbers its attempts after it. */
    async lastAttemptNumber(deliveryId: string): Promise<number> {
      const [last] = await attempts.find({ deliveryId }).sort({ attemptNumber: -1 }).limit(1).toArray();
      return last?.attemptNumber ?? 0;
    },

    /** Puts back the status fields of `previous` (a reopened delivery whose new run could not start). */
    async restore(previous: DeliveryDoc): Promise<void> {
      const { status, terminalReason, nextAttemptAt } = previous;
      await deliveries.updateOne({ _id: previous._id }, { $set: { status, terminalReason, nextAttemptAt } });
    },

    async listAttempts(deliveryId: string): Promise<AttemptDoc[]> {
      return await attempts.find({ deliveryId }).sort({ attemptNumber: 1 }).toArray();
    },

    /** Records an attempt once: when its number is already recorded (a retried activity), returns that record. */
    async recordAttempt(attempt: AttemptDoc): Promise<AttemptDoc> {
      try {
        await attempts.insertOne(attempt);
        return attempt;
      } catch (err) {
        if (!isDuplicateKey(err)) throw err;
        const existing = await attempts.findOne({
          deliveryId: attempt.deliveryId,
          attemptNumber: attempt.attemptNumber,
        });
        if (!existing) throw err;
        return existing;
      }
    },

    /**
     * Writes an attempt's effect on its delivery and returns the delivery's status. A delivery cancelled while the
     * attempt ran stays cancelled (its count and summary still record the attempt): the rare lost race is put back
     * by a second write, so that the common case is one write addressed by _id alone.
     */
    async applyAttempt(
      id: string,
      change: Pick<
        DeliveryDoc,
        'status' | 'attemptCount' | 'nextAttemptAt' | 'terminalReason' | 'lastResponseSummary' | 'updatedAt'
      >,
    ): Promise<DeliveryStatus> {
      const before = await deliveries.findOneAndUpdate({ _id: id }, { $set: change }, { returnDocument: 'before' });
      if (before?.status !== 'cancelled') return change.status;
      await deliveries.updateOne(
        { _id: id },
        { $set: { status: 'cancelled', terminalReason: before.terminalReason, nextAttemptAt: null } },
      );
      return 'cancelled';
    },

    /** Ends a pending delivery as cancelled (a delivery that already succeeded or failed keeps its status). */
    async cancel(id: string, terminalReason: TerminalReason, at: Date): Promise<void> {
      await deliveries.updateOne(
        { _id: id, status: 'pending' },
        { $set: { status: 'cancelled', terminalReason, nextAttemptAt: null, updatedAt: at } },
      );
    },

    /** A terminal delivery made pending again for a manual retry; null when it is not terminal any more. */
    async reopen(id: string, at: Date): Promise<DeliveryDoc | null> {
      return await deliveries.findOneAndUpdate(
        { _id: id, status: { $in: [...terminalStatuses] } },
        { $set: { status: 'pending', terminalReason: null, nextAttemptAt: at, updatedAt: at } },
        { returnDocument: 'after' },
      );
    },

    /**
     * Marks a subscription's pending deliveries cancelled (terminal); returns their ids so their workflows can be
     * woken to end. An attempt already running records its own outcome but leaves a cancelled status alone.
     */
    async cancelPendingOf(subscriptionId: string, terminalReason: TerminalReason): Promise<string[]> {
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
