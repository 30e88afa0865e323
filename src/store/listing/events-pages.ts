import type { EventDoc } from '../documents.js';
import { fileRows, fileRowsBulk, keyReader, type Filed, type PageCollections } from '../pages/index.js';
import { startBound } from './bounds.js';
import { handOffEntries } from './delivery-rows.js';
import { keyFor, keysOf, matches, toRow, type EventRow } from './event-rows.js';
import type { EventsListing } from './listing.js';
import { resumeAfterStop, scanBudget, stoppedAt, type ListingBounds } from './scan-budget.js';

/** An event's rows, one per listing key it is filed under. */
const eventEntries = (event: EventDoc): Filed[] => {
  const row = toRow(event);
  return keysOf(event).map((key) => ({ key, row }));
};

/**
 * The events listing on the `pages` layout (docs/events.md, "Page documents"): every stored event is filed under its
 * keys (event-rows.ts) into page documents, and a page reads the key of the query's most selective filter.
 */
export function eventsOnPages(c: PageCollections, bounds: ListingBounds): EventsListing {
  return {
    // The event's rows and its hand-off's deliveries' in one write (one journal update).
    file: async (event, subscriptionIds, handedOff) =>
      await fileRows(c, [...eventEntries(event), ...handOffEntries(handedOff, subscriptionIds)]),
    fileMany: async (events) => await fileRowsBulk(c, events.flatMap(eventEntries)),
    async list(integratorId, filters, position, limit) {
      const bound = startBound(position, filters.createdBefore);
      const reader = keyReader<EventRow>(c, keyFor(integratorId, filters), {
        keep: (r) => matches(r, filters),
        bound,
        hint: position?.page,
        afterMs: filters.createdAfter?.getTime(),
        budget: scanBudget(bounds, integratorId),
      });
      const rows = (await reader.next(limit)).map(({ row, page }) => ({
        _id: row.i,
        body: row.b,
        createdAt: row.c,
        page,
      }));
      const stop = reader.stopped();
      if (!stop) return rows;
      return stoppedAt(rows, resumeAfterStop(stop));
    },
  };
}
