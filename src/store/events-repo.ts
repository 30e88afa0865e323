import type { Db } from 'mongodb';
import type { EventDoc } from './documents.js';

/** Lifecycle events: ingestion, the history listing, and the fan-out hand-off marks. */
export function createEventsRepo(db: Db) {
  const events = db.collection<EventDoc>('events');

  return {
    collection: events,

    async insert(event: EventDoc): Promise<void> {
      await events.insertOne(event);
    },

    /** By id, across integrators: for the worker, whose inputs come from records it wrote itself. */
    async findById(id: string): Promise<EventDoc | null> {
      return await events.findOne({ _id: id });
    },

    /** Marks the hand-off to the fan-out as complete (idempotent). */
    async markFannedOut(id: string, at = new Date()): Promise<void> {
      await events.updateOne({ _id: id, fanoutAt: null }, { $set: { fanoutAt: at } });
    },

    /** Events whose hand-off has not completed and that were stored before `before`, oldest first. */
    async findNotFannedOut(before: Date, limit: number): Promise<EventDoc[]> {
      return await events
        .find({ fanoutAt: null, createdAt: { $lt: before } })
        .sort({ createdAt: 1, _id: 1 })
        .limit(limit)
        .toArray();
    },
  };
}

export type EventsRepo = ReturnType<typeof createEventsRepo>;
