import type { DeliveryStatus } from '../../domain/delivery-vocabulary.js';
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

/** Always built the same way (field order included), so that re-filing a row is a no-op `$addToSet`. */
const rowOf = (d: FiledDelivery): DeliveryRow => ({
  c: d.createdAt,
  i: d._id,
  s: d.subscriptionId,
  e: d.eventId,
});

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
  event: { _id: string; integratorId: string; createdAt: Date },
  subscriptionIds: readonly string[],
): Filed[] =>
  subscriptionIds.flatMap((s) =>
    deliveryEntries({
      _id: deliveryIdOf(event._id, s),
      integratorId: event.integratorId,
      createdAt: event.createdAt,
      subscriptionId: s,
      eventId: event._id,
    }),
  );

/** The rows filed when a delivery enters `status`: none for `succeeded` (the hot path's outcome). */
export function statusEntries(d: FiledDelivery, status: DeliveryStatus): Filed[] {
  if (!FILED_STATUSES.has(status)) return [];
  const row = rowOf(d);
  return [
    { key: keys.status(d.integratorId, status), row },
    { key: keys.subscriptionStatus(d.integratorId, d.subscriptionId, status), row },
  ];
}

/** Every key a delivery's row can be filed under, whatever statuses it went through: retention removes it from each. */
export const allKeysOf = (integratorId: string, r: DeliveryRow): string[] => {
  const d = { _id: r.i, integratorId, createdAt: r.c, subscriptionId: r.s, eventId: r.e };
  return [...deliveryEntries(d), ...[...FILED_STATUSES].flatMap((st) => statusEntries(d, st))].map((f) => f.key);
};

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
