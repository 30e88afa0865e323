import type { DeliveryStatus } from '../../domain/delivery-vocabulary.js';
import type { HistoryEventType } from '../../domain/event-types.js';
import { deliveryIdOf } from '../derived-ids.js';
import type { Filed, RowBase } from '../pages/index.js';
import type { DeliveryListFilters, FiledDelivery } from './listing.js';

/**
 * A deliveries listing entry as the page documents hold it: only the delivery's position and what a filter checks
 * (docs/deliveries.md, "The deliveries listing"). Its status and the rest are read from the delivery itself.
 */
export interface DeliveryRow extends RowBase {
  s: string;
  e: string;
  /** The event's type; absent from rows filed before it was kept (their type is checked on the delivery). */
  t?: HistoryEventType;
}

/** Statuses that have listing keys of their own: a delivery is filed under one when it enters it (off the hot path). */
const FILED_STATUSES: ReadonlySet<DeliveryStatus> = new Set(['pending', 'failed', 'cancelled']);

const keys = {
  all: (integratorId: string) => `${integratorId}|d-all|`,
  subscription: (integratorId: string, sub: string) => `${integratorId}|d-sub|${sub}`,
  event: (integratorId: string, eventId: string) => `${integratorId}|d-event|${eventId}`,
  status: (integratorId: string, st: DeliveryStatus) => `${integratorId}|d-status|${st}`,
  subscriptionStatus: (integratorId: string, sub: string, st: DeliveryStatus) =>
    `${integratorId}|d-sub-status|${sub}|${st}`,
};

/**
 * The status keys' row: the delivery's position and what a filter checks, without its type (a status listing reads
 * each delivery anyway, and rows filed before the type was kept have none: one shape, whenever it was filed). Always
 * built the same way (field order included), so that re-filing a row is a no-op `$addToSet`.
 */
export const statusRowOf = (
  d: Pick<FiledDelivery, '_id' | 'createdAt' | 'subscriptionId' | 'eventId'>,
): DeliveryRow => ({
  c: d.createdAt,
  i: d._id,
  s: d.subscriptionId,
  e: d.eventId,
});
/** The row of the keys a delivery is filed under at its creation (all, subscription, event): with its event's type. */
const rowOf = (d: FiledDelivery): DeliveryRow => ({ ...statusRowOf(d), t: d.eventType });

/** Every shape a delivery's row may be stored in, from the one retention walked: what it removes from each key. */
export const storedShapesOf = (r: DeliveryRow): DeliveryRow[] => {
  if (r.t === undefined) return [r];
  const { t: _type, ...status } = r;
  return [r, status];
};

/** A delivery's rows in the listing's keys, filed once it exists (all, its subscription, its event). */
export function deliveryEntries(d: FiledDelivery): Filed[] {
  const row = rowOf(d);
  return [
    { key: keys.all(d.integratorId), row },
    { key: keys.subscription(d.integratorId, d.subscriptionId), row },
    { key: keys.event(d.integratorId, d.eventId), row },
  ];
}

/** The rows of the deliveries an event's hand-off starts (filed with the event's own rows, in one bulkWrite). */
export const handOffEntries = (
  event: { _id: string; integratorId: string; createdAt: Date; eventType: HistoryEventType },
  subscriptionIds: readonly string[],
): Filed[] =>
  subscriptionIds.flatMap((s) =>
    deliveryEntries({
      _id: deliveryIdOf(event._id, s),
      integratorId: event.integratorId,
      createdAt: event.createdAt,
      subscriptionId: s,
      eventId: event._id,
      eventType: event.eventType,
    }),
  );

/** The rows filed when a delivery enters `status`: none for `succeeded` (the hot path's outcome). */
export function statusEntries(d: FiledDelivery, status: DeliveryStatus): Filed[] {
  if (!FILED_STATUSES.has(status)) return [];
  const row = statusRowOf(d);
  return [
    { key: keys.status(d.integratorId, status), row },
    { key: keys.subscriptionStatus(d.integratorId, d.subscriptionId, status), row },
  ];
}

/** Every key a delivery's row can be filed under, whatever statuses it went through: retention removes it from each. */
export const allKeysOf = (integratorId: string, r: DeliveryRow): string[] => [
  keys.all(integratorId),
  keys.subscription(integratorId, r.s),
  keys.event(integratorId, r.e),
  ...[...FILED_STATUSES].flatMap((st) => [
    keys.status(integratorId, st),
    keys.subscriptionStatus(integratorId, r.s, st),
  ]),
];

/** The key retention walks for an integrator's deliveries, oldest first (every delivery is filed under it). */
export const deliveryWalkKey = (integratorId: string): string => keys.all(integratorId);

/** The key of an event's deliveries (retention reads it to see whether an event still has one). */
export const eventDeliveriesKey = (integratorId: string, eventId: string): string => keys.event(integratorId, eventId);

/**
 * The key a query reads: an event's (a few rows), else a filed status's (candidates: a row stays after its delivery
 * left the status, so the status is checked on the delivery read), else a subscription's, else all.
 */
export function deliveryKeyFor(integratorId: string, f: DeliveryListFilters): string {
  if (f.eventId !== undefined) return keys.event(integratorId, f.eventId);
  if (f.status !== undefined && FILED_STATUSES.has(f.status)) {
    return f.subscriptionId === undefined
      ? keys.status(integratorId, f.status)
      : keys.subscriptionStatus(integratorId, f.subscriptionId, f.status);
  }
  if (f.subscriptionId !== undefined) return keys.subscription(integratorId, f.subscriptionId);
  return keys.all(integratorId);
}
