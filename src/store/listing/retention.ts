import type { Db, Filter } from 'mongodb';
import { findByIds } from '../by-ids.js';
import type { DeliveryDoc, EventDoc } from '../documents.js';
import {
  forgetRows,
  headId,
  journalId,
  oldestRows,
  pageId,
  type ForgetRow,
  type PageCollections,
  type Pos,
} from '../pages/index.js';
import {
  allKeysOf,
  deliveryWalkKey,
  eventDeliveriesKey,
  statusRowOf,
  storedShapesOf,
  type DeliveryRow,
} from './delivery-rows.js';
import { eventWalkKeys, keysOfRow, toRow, type EventRow } from './event-rows.js';

/** What retention walks, oldest first: one stream of deliveries or of events, from a position. */
export interface Walk<R> {
  readonly kind: 'deliveries' | 'events';
  /** Up to `limit` rows created before `before`, oldest first, strictly after `after`. */
  next(before: Date, limit: number, after?: Pos): Promise<R[]>;
}

/**
 * The listing's side of retention (src/retention): where an integrator's oldest deliveries and events are found, which
 * events still have a stored delivery, and the removal of purged rows from the listing (page documents only: on the
 * `indexes` layout the documents are the listing).
 */
export interface RetentionListing {
  walks(integratorId: string): Promise<{ deliveries: Walk<DeliveryRow>; events: Walk<EventRow>[] }>;
  /**
   * The delivery rows of the events among `eventIds` the listing holds: on `pages`, each event's own key (a row may
   * name a delivery whose run has not stored it yet, or one already deleted); on `indexes`, the stored deliveries.
   */
  deliveriesOf(integratorId: string, eventIds: readonly string[]): Promise<DeliveryRow[]>;
  /** Removes the rows of purged deliveries and events; answers the ids removed everywhere (the rest wait a next run). */
  forget(integratorId: string, deliveries: readonly DeliveryRow[], events: readonly EventRow[]): Promise<Set<string>>;
}

export function retentionOnPages(c: PageCollections): RetentionListing {
  const walk = <R extends DeliveryRow | EventRow>(kind: Walk<R>['kind'], key: string): Walk<R> => ({
    kind,
    next: async (before, limit, after) => await oldestRows<R>(c, key, before.getTime(), limit, after),
  });
  return {
    walks: async (integratorId) =>
      await Promise.resolve({
        deliveries: walk<DeliveryRow>('deliveries', deliveryWalkKey(integratorId)),
        events: eventWalkKeys(integratorId).map((key) => walk<EventRow>('events', key)),
      }),
    async deliveriesOf(integratorId, eventIds) {
      // An event's deliveries are the rows of its own key (a head, never sealed), and its journal entries.
      const keys = eventIds.map((id) => eventDeliveriesKey(integratorId, id));
      const heads = await findByIds(c.heads, keys.map(headId));
      // An event delivered to more subscriptions than a head holds has sealed pages too (rare): read them as well.
      const pageIds = heads.flatMap((h, n) =>
        Array.from({ length: Math.max(0, (h?.pages ?? 0) - (h?.base ?? 0)) }, (_, k) =>
          pageId(keys[n]!, (h?.base ?? 0) + k),
        ),
      );
      const pages = pageIds.length > 0 ? await findByIds(c.sealed, pageIds) : [];
      const journal = (await c.journals.findOne({ _id: journalId(integratorId) }))?.e ?? [];
      const rows = [...[...heads, ...pages].flatMap((d) => d?.e ?? []), ...journal.map((e) => e.r)] as DeliveryRow[];
      const wanted = new Set(eventIds);
      const byId = new Map(rows.filter((r) => wanted.has(r.e)).map((r) => [r.i, r]));
      return [...byId.values()];
    },
    async forget(integratorId, purgedDeliveries, purgedEvents) {
      const rows: ForgetRow[] = [
        ...purgedDeliveries.flatMap((walked) =>
          storedShapesOf(walked).map((row) => ({ row, keys: allKeysOf(integratorId, walked) })),
        ),
        ...purgedEvents.map((row) => ({ row, keys: keysOfRow(integratorId, row) })),
      ];
      return await forgetRows(c, integratorId, rows);
    },
  };
}

/** After `after` in (createdAt, _id) order, before `before`: a keyset range one of the `integrator_*` indexes answers. */
function oldestFilter<T extends { integratorId: string; createdAt: Date; _id: string }>(
  integratorId: string,
  before: Date,
  after?: Pos,
): Filter<T> {
  const range: Filter<T> = { integratorId, createdAt: { $lt: before } } as Filter<T>;
  if (!after) return range;
  const at = new Date(after.c);
  return { ...range, $or: [{ createdAt: { $gt: at } }, { createdAt: at, _id: { $gt: after.i } }] } as Filter<T>;
}

export function retentionOnIndexes(db: Db): RetentionListing {
  const deliveries = db.collection<DeliveryDoc>('deliveries');
  const events = db.collection<EventDoc>('events');
  const ascending = { createdAt: 1, _id: 1 } as const;
  return {
    walks: async (integratorId) =>
      await Promise.resolve({
        deliveries: {
          kind: 'deliveries',
          next: async (before, limit, after) =>
            (
              await deliveries
                .find(oldestFilter<DeliveryDoc>(integratorId, before, after), {
                  sort: ascending,
                  limit,
                  projection: { createdAt: 1, subscriptionId: 1, eventId: 1 },
                })
                .toArray()
            ).map(statusRowOf),
        },
        events: [
          {
            kind: 'events',
            next: async (before, limit, after) =>
              (
                await events
                  .find(oldestFilter<EventDoc>(integratorId, before, after), { sort: ascending, limit })
                  .toArray()
              ).map(toRow),
          },
        ],
      }),
    async deliveriesOf(integratorId, eventIds) {
      if (eventIds.length === 0) return [];
      const found = await deliveries
        .find(
          { integratorId, eventId: { $in: [...eventIds] } },
          { projection: { createdAt: 1, subscriptionId: 1, eventId: 1 } },
        )
        .toArray();
      return found.map(statusRowOf);
    },
    forget: async (_integratorId, purgedDeliveries, purgedEvents) =>
      new Set([...purgedDeliveries, ...purgedEvents].map((r) => r.i)),
  };
}
