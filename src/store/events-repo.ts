import type { Db } from 'mongodb';
import type { EventDoc } from './documents.js';
import { coalescedFindById } from './by-ids.js';
import { coalesce } from './coalesce.js';
import { insertEach } from './insert-each.js';
import { createRecentEvents } from './recent-events.js';
import { ownedBy } from './owned.js';
import type { Position } from './cursor.js';
import { HOT_COMMANDS_IN_FLIGHT, INSERTS_PER_COMMAND } from './server-limits.js';
import {
  chooseListing,
  type EventListFilters,
  type EventListRow,
  type Listing,
  type ListingBounds,
  type ListingLayout,
  type PageSizes,
} from './listing/index.js';

/**
 * Lifecycle events: ingestion and the history listing, kept by `listing` (src/store/listing: with the `pages` layout
 * every stored event is also filed into the listing's page documents, docs/events.md).
 */
export function eventsRepoWith(db: Db, listing: Listing) {
  const events = db.collection<EventDoc>('events');
  /** Files the event, and the deliveries its hand-off started (`subscriptionIds`), into the listings. */
  const index = async (doc: EventDoc, subscriptionIds: readonly string[] = [], handedOff = doc): Promise<void> =>
    await listing.events.file(doc, subscriptionIds, handedOff);
  const recent = createRecentEvents();
  // Concurrent ingests share one insert, concurrent attempts one read (src/store/coalesce.ts).
  const insertOne = coalesce((docs: EventDoc[]) => insertEach(events, docs), {
    maxInFlight: HOT_COMMANDS_IN_FLIGHT,
    maxItems: INSERTS_PER_COMMAND,
  });
  const readOne = coalescedFindById(events);

  return {
    /** The raw collection. Its documents carry `data` only inside `body`, as the producer's text (documents.ts). */
    collection: events,
    /** The listing's page documents (used with the `pages` layout). */
    pages: listing.pages,
    /** The listing's layout (for what a benchmark or a test reports). */
    layout: listing.layout,

    /** Many new events at once, in the stored form (seeding, tests, benchmarks); not idempotent. */
    async insertMany(docs: readonly EventDoc[]): Promise<void> {
      if (docs.length === 0) return;
      await events.insertMany(docs, { ordered: false });
      await listing.events.fileMany(docs);
    },

    /**
     * Files a stored event and its hand-off's deliveries into the listings (idempotent). insertOnce does it, and a
     * re-submission does it again, so a crash between the insert and this write leaves the event (and its deliveries)
     * out of the listings only until the producer, which got no 2xx, sends it again.
     */
    index,

    /**
     * Stores a new event. If one with this id exists (a re-submission, or a concurrent insert that won the race
     * on the unique _id), that stored event is returned with `created: false` and nothing is written.
     */
    async insertOnce(
      doc: EventDoc,
      /** Runs between the insert and the listing write (the commit-lag repair may move `createdAt`). */
      settle?: (stored: EventDoc) => Promise<EventDoc>,
      /** The subscriptions the hand-off started deliveries to: their listing rows go with the event's. */
      subscriptionIds: readonly string[] = [],
    ): Promise<{ created: boolean; event: EventDoc }> {
      if ((await insertOne(doc)) === 'duplicate') {
        const existing = await events.findOne({ _id: doc._id });
        if (!existing) throw new Error(`event ${doc._id}: its insert met a duplicate key, and no event has its id`);
        if (existing.body === doc.body) await index(existing, subscriptionIds);
        return { created: false, event: existing };
      }
      const event = settle ? await settle(doc) : doc;
      // The deliveries keep the hand-off's createdAt (the event's before a commit-lag repair moved it).
      await index(event, subscriptionIds, doc);
      recent.keep(event);
      return { created: true, event };
    },

    /** One event of one integrator (another integrator's id answers null, as if it did not exist). */
    async findForIntegrator(integratorId: string, id: string): Promise<EventDoc | null> {
      return ownedBy(integratorId, await events.findOne({ _id: id }));
    },

    /**
     * A page of an integrator's history, newest first, strictly after `position`; `limit` rows at most. With the
     * `pages` layout each row also names the page a cursor after it continues from.
     */
    async list(
      integratorId: string,
      filters: EventListFilters,
      position: Position | undefined,
      limit: number,
    ): Promise<(EventListRow & { page?: number })[]> {
      return await listing.events.list(integratorId, filters, position, limit);
    },

    /**
     * By id, across integrators: for the worker, whose inputs come from records it wrote itself. An event this
     * process stored in the last minute comes from memory (recent-events.ts: the API's own worker reads none).
     */
    async findById(id: string): Promise<EventDoc | null> {
      return recent.get(id) ?? (await readOne(id));
    },
  };
}

/** The events repository with a listing of its own on `layout` (tests; createStore shares one listing). */
export const createEventsRepo = (
  db: Db,
  layout: ListingLayout = 'auto',
  pageSizes?: Partial<PageSizes>,
  bounds?: ListingBounds,
) => eventsRepoWith(db, chooseListing(db, layout, pageSizes, bounds));

export type EventsRepo = ReturnType<typeof eventsRepoWith>;
