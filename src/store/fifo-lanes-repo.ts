import type { Db } from 'mongodb';

/**
 * `fifo_lanes`: one per ordered subscription (`_id` = subscriptionId). `next`: the last place handed out; `turn`: the
 * place whose delivery may send (every place before it has ended); `blockedBy`: the delivery that failed after its
 * whole schedule and paused the subscription (nothing after it goes until the resume clears it); `missing`: a place
 * seen without its slot by a waiter's recheck, and since when (a hand-off that stopped between its two writes).
 */
export interface FifoLaneDoc {
  _id: string;
  integratorId: string;
  next: number;
  turn: number;
  /** Absent or null when nothing blocks it. */
  blockedBy?: string | null;
  missing?: { seq: number; since: Date } | null;
}

/**
 * `fifo_slots`: which delivery holds a place (`_id` = `<subscriptionId>|<seq>`), written before its workflow starts,
 * removed when its turn passes. `dud`: the place of a repeated hand-off whose delivery already had one.
 */
export interface FifoSlotDoc {
  _id: string;
  integratorId: string;
  subscriptionId: string;
  deliveryId: string;
  at: Date;
  dud?: boolean;
}

const slotId = (subscriptionId: string, seq: number): string => `${subscriptionId}|${seq}`;

/** The places of ordered subscriptions' deliveries (docs/deliveries.md, "Ordered delivery"); every write by `_id`. */
export function createFifoLanesRepo(db: Db) {
  const lanes = db.collection<FifoLaneDoc>('fifo_lanes');
  const slots = db.collection<FifoSlotDoc>('fifo_slots');

  return {
    lanes,
    slots,

    /** The next place of the subscription's lane for a delivery, with the slot that names it (two writes). */
    async take(subscription: { _id: string; integratorId: string }, deliveryId: string, at: Date): Promise<number> {
      const { _id: subscriptionId, integratorId } = subscription;
      const lane = await lanes.findOneAndUpdate(
        { _id: subscriptionId },
        { $inc: { next: 1 }, $setOnInsert: { integratorId, turn: 1, blockedBy: null } },
        { upsert: true, returnDocument: 'after' },
      );
      if (!lane) throw new Error(`the lane of subscription ${subscriptionId} was not written`);
      const seq = lane.next;
      await slots.insertOne({ _id: slotId(subscriptionId, seq), integratorId, subscriptionId, deliveryId, at });
      return seq;
    },

    /** A repeated hand-off's place, skipped when its turn comes: its delivery runs at the place it took first. */
    async markDud(subscriptionId: string, seq: number): Promise<void> {
      await slots.updateOne({ _id: slotId(subscriptionId, seq) }, { $set: { dud: true } });
    },

    lane: (subscriptionId: string) => lanes.findOne({ _id: subscriptionId }),
    slot: (subscriptionId: string, seq: number) => slots.findOne({ _id: slotId(subscriptionId, seq) }),

    /**
     * The turn moves past `seq` (never back: `$max`); answers the lane now. `blockedBy`: the delivery at `seq` failed
     * after its whole schedule, and nothing after it goes until the resume.
     */
    async passFrom(subscriptionId: string, seq: number, blockedBy: string | null): Promise<FifoLaneDoc | null> {
      const lane = await lanes.findOneAndUpdate(
        { _id: subscriptionId },
        {
          $max: { turn: seq + 1 },
          ...(blockedBy ? { $set: { blockedBy, missing: null } } : { $set: { missing: null } }),
        },
        { returnDocument: 'after' },
      );
      return lane;
    },

    async dropSlot(subscriptionId: string, seq: number): Promise<void> {
      await slots.deleteOne({ _id: slotId(subscriptionId, seq) });
    },

    /** A waiter saw the place `seq` without a slot: noted with the time, so that a later recheck can skip it. */
    async noteMissing(subscriptionId: string, seq: number, at: Date): Promise<void> {
      await lanes.updateOne({ _id: subscriptionId }, { $set: { missing: { seq, since: at } } });
    },

    /** The resume: deliveries after a failed one go again. */
    async unblock(subscriptionId: string): Promise<void> {
      await lanes.updateOne({ _id: subscriptionId }, { $set: { blockedBy: null } });
    },

    /** An erasure's: every lane and slot of the integrator (a filter by integratorId: indexed on a real MongoDB). */
    async eraseIntegrator(integratorId: string): Promise<void> {
      await slots.deleteMany({ integratorId });
      await lanes.deleteMany({ integratorId });
    },
  };
}

export type FifoLanesRepo = ReturnType<typeof createFifoLanesRepo>;
