import type { Filter } from 'mongodb';
import type { EventDoc } from './documents.js';
import { heraldEventTypes, TEST_EVENT_TYPE, type SpecHistoryEventType } from '../domain/event-types.js';
import { after, type Position } from './cursor.js';

/** Listing filters (§4.1); dates are exclusive bounds on createdAt. */
export interface EventListFilters {
  accountId?: string;
  userId?: string;
  transactionId?: string;
  eventType?: SpecHistoryEventType;
  createdAfter?: Date;
  createdBefore?: Date;
}

/** What a history page needs of each event: the stored §6.4 body and createdAt (plus _id for the cursor). */
export type EventListRow = Pick<EventDoc, '_id' | 'body' | 'createdAt'>;

/**
 * The listing filter. Equality fields first, then the createdAt range, so one of the `integrator_*_newest` indexes
 * answers it; the keyset position also caps createdAt (`$lte`) so the index scan starts at the cursor, not at the top.
 */
export function listFilter(integratorId: string, f: EventListFilters, position?: Position): Filter<EventDoc> {
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
export const listProjection = { _id: 1, body: 1, createdAt: 1 } as const;
