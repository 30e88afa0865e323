// The marks of a pending delivery that waits without a request (docs/deliveries.md, "Waiting without a request"):
// held by its paused subscription, or waiting for a capacity guard or its ordered lane's turn; and the resume's page of
// held ones. Each mark is one write by `_id` that also creates a handed-off delivery not yet recorded.
import type { Collection, Filter } from 'mongodb';
import type { GateWaitReason } from '../domain/delivery-vocabulary.js';
import type { DeliveryDoc } from './documents.js';
import { isDuplicateKey } from './duplicate-key.js';

/** What a delivery is, fixed at its creation. */
export type DeliveryIdentity = Pick<
  DeliveryDoc,
  '_id' | 'integratorId' | 'subscriptionId' | 'eventId' | 'eventType' | 'createdAt' | 'fifoSeq'
>;

/** Exactly the identity fields of a delivery (a whole document may be passed). */
export const identityOf = ({
  _id,
  integratorId,
  subscriptionId,
  eventId,
  eventType,
  createdAt,
  fifoSeq,
}: DeliveryIdentity) =>
  ({
    ...{ _id, integratorId, subscriptionId, eventId, eventType, createdAt },
    ...(fifoSeq === undefined ? {} : { fifoSeq }),
  }) satisfies DeliveryIdentity;

export function createDeliveryWaits(deliveries: Collection<DeliveryDoc>) {
  return {
    /**
     * Marks a pending delivery held by its paused subscription (one write by `_id`), creating a handed-off one that
     * has no record yet. Its next recorded attempt (or cancellation) clears the mark.
     */
    async hold(identity: DeliveryIdentity, at: Date): Promise<void> {
      const { _id, ...created } = identityOf(identity);
      await deliveries
        .updateOne(
          { _id, status: 'pending' },
          {
            // No attempt is due while held (nor counted overdue by the backlog gauges) until the release.
            $set: { held: true, nextAttemptAt: null, updatedAt: at, waitReason: null },
            $setOnInsert: { ...created, attemptCount: 0, terminalReason: null },
          },
          { upsert: true },
        )
        .catch((err: unknown) => {
          // The delivery exists and is no longer pending (cancelled meanwhile): the upsert's insert lost on `_id`.
          if (!isDuplicateKey(err)) throw err;
        });
    },

    /**
     * Marks a pending delivery as waiting for a capacity guard until `until` (or for its lane's turn: null), one write
     * by `_id`, creating a handed-off one that has no record yet: the API shows why and until when. Its next attempt's
     * record clears it.
     */
    async wait(
      identity: DeliveryIdentity,
      until: Date | null,
      reason: GateWaitReason | 'fifo_turn',
      at: Date,
    ): Promise<void> {
      const { _id, ...created } = identityOf(identity);
      // By `_id` alone (the MongoDB-wire server scans the collection for any other filter: every re-ask writes this).
      // A released delivery that waits again is no longer held (a resume's release moves on at once).
      const before = await deliveries.findOneAndUpdate(
        { _id },
        {
          $set: { waitReason: reason, nextAttemptAt: until, updatedAt: at, held: false },
          $setOnInsert: { ...created, status: 'pending', attemptCount: 0, terminalReason: null },
        },
        { upsert: true, returnDocument: 'before' }, // no projection: the MongoDB-wire server does not take one here
      );
      // Ended meanwhile (cancelled while the attempt ran): take the wait back, as it was.
      if (before && before.status !== 'pending')
        await deliveries.updateOne({ _id }, { $set: { waitReason: null, nextAttemptAt: before.nextAttemptAt } });
    },

    /**
     * A page of a subscription's held deliveries, oldest first, after `position` (keyset on createdAt, _id). A rare
     * path (a resume): on the MongoDB-wire server it reads the collection once per page.
     */
    async listHeld(
      subscriptionId: string,
      position: { createdAt: Date; id: string } | null,
      limit: number,
    ): Promise<{ id: string; createdAt: Date }[]> {
      const after: Filter<DeliveryDoc> = position
        ? {
            $or: [
              { createdAt: { $gt: position.createdAt } },
              { createdAt: position.createdAt, _id: { $gt: position.id } },
            ],
          }
        : {};
      const held = await deliveries
        .find({ subscriptionId, held: true, status: 'pending', ...after }, { projection: { createdAt: 1 } })
        .sort({ createdAt: 1, _id: 1 })
        .limit(limit)
        .toArray();
      return held.map((d) => ({ id: d._id, createdAt: d.createdAt }));
    },
  };
}
