import type { Collection } from 'mongodb';
import type { DeliveryStatus } from '../domain/delivery-vocabulary.js';
import { findByIds } from './by-ids.js';
import { deliveryIdOf } from './derived-ids.js';
import type { DeliveryDoc } from './documents.js';
import type { PageCollections } from './event-pages/docs.js';
import { keyReader } from './event-pages/read.js';
import type { Pos } from './event-pages/rows.js';
import type { Filed } from './event-pages/write.js';

/**
 * The deliveries listing on the `pages` layout (docs/deliveries.md, "The deliveries listing"): page documents in
 * `event_pages` holding only each delivery's position — ids in creation order, which never change — and the rows
 * themselves read by `_id`, one find per batch of rows (`_id` `$in`, src/store/by-ids.ts), so a page always shows a
 * delivery as it is now. Built with the same heads, sealed pages and reader as the events listing
 * (src/store/event-pages).
 */
export interface DeliveryRow {
  c: Date;
  i: string;
  s: string;
  e: string;
}

export interface DeliveryListFilters {
  subscriptionId?: string;
  eventId?: string;
  status?: DeliveryStatus;
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
const rowOf = (d: Pick<DeliveryDoc, '_id' | 'createdAt' | 'subscriptionId' | 'eventId'>): DeliveryRow => ({
  c: d.createdAt,
  i: d._id,
  s: d.subscriptionId,
  e: d.eventId,
});

/** A delivery's rows in the listing's keys, filed once it exists (all, its subscription, its event). */
export function deliveryEntries(
  d: Pick<DeliveryDoc, '_id' | 'integratorId' | 'createdAt' | 'subscriptionId' | 'eventId'>,
): Filed[] {
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
export function statusEntries(
  d: Pick<DeliveryDoc, '_id' | 'integratorId' | 'createdAt' | 'subscriptionId' | 'eventId'>,
  status: DeliveryStatus,
): Filed[] {
  if (!FILED_STATUSES.has(status)) return [];
  const row = rowOf(d);
  return [
    { key: keys.status(d.integratorId, status), row },
    { key: keys.subscriptionStatus(d.integratorId, d.subscriptionId, status), row },
  ];
}

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

/** Candidate rows read per round: first `limit`, then what is missing divided by the share that passed so far. */
const MAX_BATCH = 800;

/**
 * The next round's candidates: the deliveries still missing over the share of candidates that passed so far, with a
 * quarter more for the share's noise (`status=succeeded` at 70 % reads ≈ 1.6 × limit instead of 3 × by doubling);
 * twice the last round while none passed.
 */
export function nextBatch(missing: number, read: number, passed: number, last: number): number {
  const want = passed === 0 ? last * 2 : Math.ceil(((missing * read) / passed) * 1.25);
  return Math.min(MAX_BATCH, Math.max(missing, want));
}

/**
 * Up to `limit` deliveries of the integrator, newest first, strictly after `position`. Reads the key's rows, then
 * their deliveries by `_id` in one find; a row whose delivery is not recorded yet (its first attempt in flight) or no
 * longer has the asked status is skipped, and further rows are read (the key's reader goes on where it stopped) until
 * `limit` deliveries are found.
 */
export async function listFromDeliveryPages(
  c: PageCollections,
  deliveries: Collection<DeliveryDoc>,
  integratorId: string,
  f: DeliveryListFilters,
  position: (Pos & { page?: number }) | undefined,
  limit: number,
): Promise<(DeliveryDoc & { page: number })[]> {
  const keep = (r: DeliveryRow) =>
    (f.subscriptionId === undefined || r.s === f.subscriptionId) && (f.eventId === undefined || r.e === f.eventId);
  const reader = keyReader<DeliveryRow>(c, deliveryKeyFor(integratorId, f), {
    keep,
    bound: position,
    hint: position?.page,
  });
  const out: (DeliveryDoc & { page: number })[] = [];
  let batch = limit;
  let read = 0;
  while (out.length < limit) {
    const rows = await reader.next(batch);
    const docs = await findByIds(
      deliveries,
      rows.map(({ row }) => row.i),
      { projection: { attempts: 0 } },
    );
    for (const [n, d] of docs.entries()) {
      if (!d || d.integratorId !== integratorId || (f.status !== undefined && d.status !== f.status)) continue;
      out.push({ ...d, page: rows[n]!.page });
      if (out.length === limit) break;
    }
    if (rows.length < batch) break;
    read += rows.length;
    batch = nextBatch(limit - out.length, read, out.length, batch);
  }
  return out;
}

/** Every delivery of a subscription ever filed as pending (DELETE reads and checks each by `_id`). */
export async function pendingCandidates(c: PageCollections, integratorId: string, sub: string): Promise<string[]> {
  const reader = keyReader<DeliveryRow>(c, keys.subscriptionStatus(integratorId, sub, 'pending'), { keep: () => true });
  const ids: string[] = [];
  for (;;) {
    const rows = await reader.next(1000);
    ids.push(...rows.map((r) => r.row.i));
    if (rows.length < 1000) return ids;
  }
}
