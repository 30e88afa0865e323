import type { Db, Filter } from 'mongodb';
import { heraldEventTypes, TEST_EVENT_TYPE } from '../../domain/event-types.js';
import { readInRounds } from './index-rounds.js';
import { stoppedAt, type ListingBounds } from './scan-budget.js';
import { cancelledAt } from '../deliveries-cancel.js';
import type { DeliveryDoc, EventDoc } from '../documents.js';
import type { DeliveriesListing, EventListFilters, EventListRow, EventsListing } from './listing.js';

/** The filters an index of the `events` collection answers, most selective first: a query's anchor is the first given. */
const EVENT_ANCHORS = ['transactionId', 'userId', 'accountId', 'eventType'] as const;
/** Event types a listing without `eventType` leaves out: webhook.test and Herald's own (they cannot be asked for). */
const UNLISTED: ReadonlySet<string> = new Set([TEST_EVENT_TYPE, ...heraldEventTypes]);

/**
 * The anchor (the integrator, the most selective equality filter given and the createdAt range: one of the
 * `integrator_*_newest` indexes answers it in order) and what is left for the code to check.
 */
function eventQuery(integratorId: string, f: EventListFilters) {
  const anchorField = EVENT_ANCHORS.find((k) => f[k] !== undefined);
  const anchor: Filter<EventDoc> = { integratorId, ...createdRange(f) };
  if (anchorField) anchor[anchorField] = f[anchorField] as never;
  const rest = EVENT_ANCHORS.filter((k) => k !== anchorField && f[k] !== undefined);
  const keep = (e: EventDoc): boolean =>
    rest.every((k) => e[k] === f[k]) && (f.eventType !== undefined || !UNLISTED.has(e.eventType));
  return { anchor, keep };
}

/** The projection of a history page: what it shows, and what the code checks. */
const listProjection = { _id: 1, body: 1, createdAt: 1, eventType: 1, accountId: 1, userId: 1, transactionId: 1 };

/** The events listing on the `indexes` layout: the `events` collection and its declared indexes, nothing filed. */
export function eventsOnIndexes(db: Db, bounds: ListingBounds): EventsListing {
  const events = db.collection<EventDoc>('events');
  return {
    file: async () => {},
    fileMany: async () => {},
    async list(integratorId, filters, position, limit) {
      const { anchor, keep } = eventQuery(integratorId, filters);
      const rows = await readInRounds(events, {
        integratorId,
        anchor,
        keep,
        position,
        limit,
        projection: listProjection,
        bounds,
      });
      const shown = rows.map((e): EventListRow => ({ _id: e._id, body: e.body, createdAt: e.createdAt }));
      return rows.resumeAt ? stoppedAt(shown, rows.resumeAt) : shown;
    },
  };
}

/** The filters an index of `deliveries` answers, most selective first. */
const DELIVERY_ANCHORS = ['eventId', 'subscriptionId', 'status', 'eventType'] as const;

/** The createdAt range of exclusive bounds, for a query's anchor (none when neither is given). */
function createdRange(f: { createdAfter?: Date; createdBefore?: Date }): { createdAt?: { $gt?: Date; $lt?: Date } } {
  const createdAt: { $gt?: Date; $lt?: Date } = {};
  if (f.createdAfter) createdAt.$gt = f.createdAfter;
  if (f.createdBefore) createdAt.$lt = f.createdBefore;
  return Object.keys(createdAt).length > 0 ? { createdAt } : {};
}

/** The deliveries listing on the `indexes` layout: the `deliveries` collection and its declared indexes. */
export function deliveriesOnIndexes(db: Db, bounds: ListingBounds): DeliveriesListing {
  const deliveries = db.collection<DeliveryDoc>('deliveries');
  return {
    file: async () => {},
    fileMany: async () => {},
    fileStatus: async () => {},
    async list(integratorId, filters, position, limit) {
      const anchorField = DELIVERY_ANCHORS.find((k) => filters[k] !== undefined);
      const anchor: Filter<DeliveryDoc> = { integratorId, ...createdRange(filters) };
      if (anchorField) anchor[anchorField] = filters[anchorField] as never;
      const rest = DELIVERY_ANCHORS.filter((k) => k !== anchorField && filters[k] !== undefined);
      const keep = rest.length === 0 ? null : (d: DeliveryDoc) => rest.every((k) => d[k] === filters[k]);
      return await readInRounds(deliveries, {
        integratorId,
        anchor,
        keep,
        position,
        limit,
        projection: { attempts: 0 },
        bounds,
      });
    },
    /** One query on `subscription_status_oldest` and one conditional update of what it found. */
    async cancelPendingOf(_integratorId, subscriptionId, terminalReason) {
      const now = new Date();
      const pending = await deliveries
        .find({ subscriptionId, status: 'pending' }, { projection: { _id: 1 } })
        .map((d) => d._id)
        .toArray();
      if (pending.length > 0)
        await deliveries.updateMany(
          { _id: { $in: pending }, status: 'pending' },
          { $set: cancelledAt(terminalReason, now) },
        );
      return pending;
    },
  };
}
