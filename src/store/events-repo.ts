import type { Db } from 'mongodb';
import type { EventDoc } from './documents.js';
import { isDuplicateKey } from './integrators-repo.js';
import { ownedBy } from './owned.js';
import { newestFirst, type Position } from './cursor.js';
import { listFilter, listProjection, type EventListFilters, type EventListRow } from './events-query.js';
import { layoutResolver, type ListingLayout } from './listing-layout.js';
import { pageCollections, type PageSizes } from './event-pages/docs.js';
import { listFromPages } from './event-pages/read.js';
import { indexEvent, indexEvents } from './event-pages/write.js';
import { handOffEntries } from './delivery-pages.js';

/**
 * Lifecycle events: ingestion and the history listing. With the `pages` layout every
 * stored event is also filed into the listing's page documents (src/store/event-pages, docs/events.md).
 */
export function createEventsRepo(db: Db, configuredLayout: ListingLayout = 'auto', pageSizes?: Partial<PageSizes>) {
  const events = db.collection<EventDoc>('events');
  const pages = pageCollections(db, pageSizes);
  const layout = layoutResolver(db, configuredLayout);
  /** Files the event, and the deliveries its hand-off started (`subscriptionIds`), into the listings. */
  const index = async (doc: EventDoc, subscriptionIds: readonly string[] = [], handedOff = doc): Promise<void> => {
    if ((await layout()) === 'pages') await indexEvent(pages, doc, handOffEntries(handedOff, subscriptionIds));
  };

  return {
    /** The raw collection. Its documents carry `data` only inside `body`, as the producer's text (documents.ts). */
    collection: events,
    /** The listing's page documents (used with the `pages` layout). */
    pages,
    layout,

    /** Many new events at once, in the stored form (seeding, tests, benchmarks); not idempotent. */
    async insertMany(docs: readonly EventDoc[]): Promise<void> {
      if (docs.length === 0) return;
      await events.insertMany(docs, { ordered: false });
      if ((await layout()) === 'pages') await indexEvents(pages, docs);
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
      try {
        await events.insertOne(doc);
      } catch (err) {
        if (!isDuplicateKey(err)) throw err;
        const existing = await events.findOne({ _id: doc._id });
        if (!existing) throw err;
        if (existing.body === doc.body) await index(existing, subscriptionIds);
        return { created: false, event: existing };
      }
      const event = settle ? await settle(doc) : doc;
      // The deliveries keep the hand-off's createdAt (the event's before a commit-lag repair moved it).
      await index(event, subscriptionIds, doc);
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
      if ((await layout()) === 'pages') {
        const at = position && { c: position.createdAt.getTime(), i: position.id, page: position.page };
        const rows = await listFromPages(pages, integratorId, filters, at, limit);
        return rows.map(({ row, page }) => ({ _id: row.i, body: row.b, createdAt: row.c, page }));
      }
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
