import type { Db, Filter } from 'mongodb';
import { heraldEventTypes, TEST_EVENT_TYPE } from '../../domain/event-types.js';
import { after, newestFirst, type Position } from '../cursor.js';
import { cancelledAt } from '../deliveries-cancel.js';
import type { DeliveryDoc, EventDoc } from '../documents.js';
import type { DeliveriesListing, EventListFilters, EventListRow, EventsListing } from './listing.js';

/**
 * The listing filter. Equality fields first, then the createdAt range, so one of the `integrator_*_newest` indexes
 * answers it; the keyset position also caps createdAt (`$lte`) so the index scan starts at the cursor, not at the top.
 */
function listFilter(integratorId: string, f: EventListFilters, position?: Position): Filter<EventDoc> {
  const filter: Filter<EventDoc> = { integratorId };
  if (f.accountId !== undefined) filter.accountId = f.accountId;
  if (f.userId !== undefined) filter.userId = f.userId;
  if (f.transactionId !== undefined) filter.transactionId = f.transactionId;
  // webhook.test events are not lifecycle events: listed only when asked for by name. Herald's own events are never
  // listed, and cannot be asked for (the filter takes the spec's history enum only).
  filter.eventType = f.eventType ?? { $nin: [TEST_EVENT_TYPE, ...heraldEventTypes] };
  const createdAt: { $gt?: Date; $lt?: Date; $lte?: Date } = {};
  if (f.createdAfter) createdAt.$gt = f.createdAfter;
  if (f.createdBefore) createdAt.$lt = f.createdBefore;
  if (position) createdAt.$lte = position.createdAt;
  if (Object.keys(createdAt).length > 0) filter.createdAt = createdAt;
  return position ? { $and: [filter, after<EventDoc>(position)] } : filter;
}

/** The projection of a history page. */
const listProjection = { _id: 1, body: 1, createdAt: 1 } as const;

/** The events listing on the `indexes` layout: the `events` collection and its declared indexes, nothing filed. */
export function eventsOnIndexes(db: Db): EventsListing {
  const events = db.collection<EventDoc>('events');
  return {
    file: async () => {},
    fileMany: async () => {},
    list: async (integratorId, filters, position, limit) =>
      await events
        .find<EventListRow>(listFilter(integratorId, filters, position), { projection: listProjection })
        .sort(newestFirst)
        .limit(limit)
        .toArray(),
  };
}

/** The deliveries listing on the `indexes` layout: the `deliveries` collection and its declared indexes. */
export function deliveriesOnIndexes(db: Db): DeliveriesListing {
  const deliveries = db.collection<DeliveryDoc>('deliveries');
  return {
    file: async () => {},
    fileMany: async () => {},
    fileStatus: async () => {},
    async list(integratorId, filters, position, limit) {
      const query: Filter<DeliveryDoc> = {
        integratorId,
        ...Object.fromEntries(Object.entries(filters).filter(([, v]) => v !== undefined)),
        ...(position ? after<DeliveryDoc>(position) : {}),
      };
      return await deliveries
        .find(query, { projection: { attempts: 0 } })
        .sort(newestFirst)
        .limit(limit)
        .toArray();
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
