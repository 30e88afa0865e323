import type { Db } from 'mongodb';
import type { EventDoc } from './documents.js';
import { isDuplicateKey } from './integrators-repo.js';
import { ownedBy } from './owned.js';
import { newestFirst, type Position } from './cursor.js';
import { listFilter, listProjection, type EventListFilters, type EventListRow } from './events-query.js';

/** Lifecycle events: ingestion, the history listing, and the fan-out hand-off marks. */
export function createEventsRepo(db: Db) {
  const events = db.collection<EventDoc>('events');

  return {
    /** The raw collection. Its documents carry `data` only inside `body`, as the producer's text (documents.ts). */
    collection: events,

    /** Many new events at once, in the stored form (seeding, tests, benchmarks); not idempotent. */
    async insertMany(docs: readonly EventDoc[]): Promise<void> {
      if (docs.length > 0) await events.insertMany(docs, { ordered: false });
    },

    /**
     * Stores a new event. If one with this id exists (a re-submission, or a concurrent insert that won the race
     * on the unique _id), that stored event is returned with `created: false` and nothing is written.
     */
    async insertOnce(doc: EventDoc): Promise<{ created: boolean; event: EventDoc }> {
      try {
        await events.insertOne(doc);
        return { created: true, event: doc };
      } catch (err) {
        if (!isDuplicateKey(err)) throw err;
        const existing = await events.findOne({ _id: doc._id });
        if (!existing) throw err;
        return { created: false, event: existing };
      }
    },

    /** One event of one integrator (another integrator's id answers null, as if it did not exist). */
    async findForIntegrator(integratorId: string, id: string): Promise<EventDoc | null> {
      return ownedBy(integratorId, await events.findOne({ _id: id }));
    },

    /** A page of an integrator's history, newest first, strictly after `position`; `limit` rows at most. */
    async list(
      integratorId: string,
      filters: EventListFilters,
      position: Position | undefined,
      limit: number,
    ): Promise<EventListRow[]> {
      return await events
        .find<EventListRow>(listFilter(integratorId, filters, position), { projection: listProjection })
        .sort(newestFirst)
        .limit(limit)
        .toArray();
    },

    /** By id, across integrators: for the worker, whose inputs come from records it wrote itself. */
    async findById(id: string): Promise<EventDoc | null> {
      return await events.findOne({ _id: id });
    },
  };
}

export type EventsRepo = ReturnType<typeof createEventsRepo>;
