import type { Collection } from 'mongodb';
import { findByIds } from '../by-ids.js';
import type { Position } from '../cursor.js';
import { createCancelOne } from '../deliveries-cancel.js';
import type { DeliveryDoc } from '../documents.js';
import { fileRows, fileRowsBulk, keyReader, type Filed, type PageCollections } from '../pages/index.js';
import { startBound } from './bounds.js';
import { MAX_CANDIDATES_PER_ROUND } from '../server-limits.js';
import { deliveryEntries, deliveryKeyFor, statusEntries, type DeliveryRow } from './delivery-rows.js';
import type { DeliveriesListing, DeliveryListFilters } from './listing.js';
import { resumeAfterStop, scanBudget, stoppedAt, type BoundedRows, type ListingBounds } from './scan-budget.js';

/** Rows a DELETE reads per call while it collects a subscription's pending candidates. */
const PENDING_ROWS_PER_READ = 1000;

/**
 * The deliveries listing on the `pages` layout (docs/deliveries.md, "The deliveries listing"): page documents in
 * `event_pages` holding only each delivery's position — ids in creation order, which never change — and the rows
 * themselves read by `_id`, one find per batch of rows (`_id` `$in`, src/store/by-ids.ts), so a page always shows a
 * delivery as it is now. Built with the same engine (src/store/pages) as the events listing.
 */
export function deliveriesOnPages(
  c: PageCollections,
  deliveries: Collection<DeliveryDoc>,
  bounds: ListingBounds,
): DeliveriesListing {
  const file = async (entries: Filed[]): Promise<void> => {
    if (entries.length > 0) await fileRows(c, entries);
  };
  const fileStatus: DeliveriesListing['fileStatus'] = async (d, status) => await file(statusEntries(d, status));
  const cancelOne = createCancelOne(deliveries, async (d) => await fileStatus(d, 'cancelled'));
  return {
    file: async (d) => await file([...deliveryEntries(d), ...statusEntries(d, d.status)]),
    fileMany: async (docs) =>
      await fileRowsBulk(
        c,
        docs.flatMap((d) => [...deliveryEntries(d), ...statusEntries(d, d.status)]),
      ),
    fileStatus,
    list: async (integratorId, filters, position, limit) =>
      await listFromDeliveryPages(c, deliveries, integratorId, filters, position, limit, bounds),

    /** The subscription's rows filed as pending: each candidate read by `_id`, and cancelled by `_id` (cancelOne). */
    async cancelPendingOf(integratorId, subscriptionId, terminalReason) {
      const now = new Date();
      const ids = await pendingCandidates(c, deliveryKeyFor(integratorId, { subscriptionId, status: 'pending' }));
      const cancelled = await Promise.all(
        ids.map(async (_id) => {
          if ((await deliveries.findOne({ _id }, { projection: { status: 1 } }))?.status !== 'pending') return null;
          const before = await cancelOne(_id, terminalReason, now);
          return before?.status === 'pending' ? _id : null;
        }),
      );
      return cancelled.filter((id): id is string => id !== null);
    },
  };
}

/**
 * The next round's candidates: the deliveries still missing over the share of candidates that passed so far, with a
 * quarter more for the share's noise (`status=succeeded` at 70 % reads ≈ 1.6 × limit instead of 3 × by doubling);
 * twice the last round while none passed.
 */
export function nextBatch(missing: number, read: number, passed: number, last: number): number {
  const want = passed === 0 ? last * 2 : Math.ceil(((missing * read) / passed) * 1.25);
  return Math.min(MAX_CANDIDATES_PER_ROUND, Math.max(missing, want));
}

/**
 * Up to `limit` deliveries of the integrator, newest first, strictly after `position`. Reads the key's rows, then
 * their deliveries by `_id` in one find; a row whose delivery is not recorded yet (its first attempt in flight) or no
 * longer has the asked status is skipped, and further rows are read (the key's reader goes on where it stopped) until
 * `limit` deliveries are found, or the page's scan budget is spent: then the page ends with what it found, and a
 * cursor goes on after the last row read. Each names the page a cursor after it continues from.
 */
async function listFromDeliveryPages(
  c: PageCollections,
  deliveries: Collection<DeliveryDoc>,
  integratorId: string,
  f: DeliveryListFilters,
  position: Position | null,
  limit: number,
  bounds: ListingBounds,
): Promise<BoundedRows<DeliveryDoc & { page: number }>> {
  const afterMs = f.createdAfter?.getTime();
  // A row filed before rows kept their event's type has none: its delivery's type is checked when it is read.
  const keep = (r: DeliveryRow) =>
    (f.subscriptionId === undefined || r.s === f.subscriptionId) &&
    (f.eventId === undefined || r.e === f.eventId) &&
    (f.eventType === undefined || r.t === undefined || r.t === f.eventType) &&
    (afterMs === undefined || r.c.getTime() > afterMs);
  const bound = startBound(position, f.createdBefore);
  const budget = scanBudget(bounds, integratorId);
  const reader = keyReader<DeliveryRow>(c, deliveryKeyFor(integratorId, f), {
    keep,
    bound,
    hint: position?.page,
    afterMs,
    budget,
  });
  const out: (DeliveryDoc & { page: number })[] = [];
  let batch = limit;
  let read = 0;
  while (out.length < limit) {
    const rows = await reader.next(batch);
    // By `_id`, at most MAX_CANDIDATES_PER_ROUND: bounded by itself, so no maxTimeMS (FerretDB 1.24 on SQLite can
    // interrupt another query of the same connection when one runs out of it); the budget is checked between rounds.
    // With a status to check (or an event type a row does not hold), the candidates are read as those and their
    // owner only, then the few that pass whole: a rare status over a long history decodes little of what it rejects.
    const ids = rows.map(({ row }) => row.i);
    const passes = (d: Pick<DeliveryDoc, 'integratorId' | 'status' | 'eventType'> | null) =>
      d !== null &&
      d.integratorId === integratorId &&
      (f.status === undefined || d.status === f.status) &&
      (f.eventType === undefined || d.eventType === f.eventType);
    const typeUnknown = f.eventType !== undefined && rows.some(({ row }) => row.t === undefined);
    const checked = { projection: { status: 1, integratorId: 1, eventType: 1 } };
    const candidates = f.status === undefined && !typeUnknown ? null : await findByIds(deliveries, ids, checked);
    const wanted = candidates ? ids.filter((_, n) => passes(candidates[n]!)) : ids;
    const docs = new Map(
      (await findByIds(deliveries, wanted, { projection: { attempts: 0 } })).map((d, n) => [wanted[n]!, d]),
    );
    budget.spend(rows.length);
    for (const { row, page } of rows) {
      const d = docs.get(row.i) ?? null;
      if (!d || !passes(d)) continue;
      out.push({ ...d, page });
      if (out.length === limit) break;
    }
    if (out.length === limit) break;
    // Stopped for the budget, by the reader or here: go on after the last row read (every newer one was examined).
    const stop = reader.stopped();
    if (stop) return stoppedAt(out, resumeAfterStop(stop));
    const last = rows.at(-1);
    if (rows.length < batch) break;
    await budget.paced();
    if (budget.spent() && last) return stoppedAt(out, { createdAt: last.row.c, id: last.row.i, page: last.page });
    read += rows.length;
    batch = nextBatch(limit - out.length, read, out.length, batch);
  }
  return out;
}

/** Every delivery ever filed under `key` (a subscription's pending: DELETE reads and checks each by `_id`). */
async function pendingCandidates(c: PageCollections, key: string): Promise<string[]> {
  const reader = keyReader<DeliveryRow>(c, key, { keep: () => true });
  const ids: string[] = [];
  for (;;) {
    const rows = await reader.next(PENDING_ROWS_PER_READ);
    ids.push(...rows.map((r) => r.row.i));
    if (rows.length < PENDING_ROWS_PER_READ) return ids;
  }
}
