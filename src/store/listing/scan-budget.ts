import { setTimeout as sleep } from 'node:timers/promises';
import { MongoServerError } from 'mongodb';
import type { Position } from '../cursor.js';
import type { ReaderStop } from '../pages/index.js';
import { createScanPace, type ScanPace } from './scan-pace.js';

/**
 * What one listing page may read (docs/events.md, "Bounded pages"): rows examined, from page documents or index
 * entries, and wall time. A query that filters what it reads stops when either runs out and answers the rows it found,
 * with a cursor that goes on from where it stopped, so one integrator's rare filter over a long history holds a
 * connection for at most `timeMs`, never until the history ends.
 */
export interface ListingBounds {
  scanRows: number;
  timeMs: number;
  /** Each integrator's rows a second in this process, shared by its pages (src/store/listing/scan-pace.ts). */
  pace?: ScanPace;
}

export const defaultListingBounds: ListingBounds = { scanRows: 20_000, timeMs: 500 };

/** One page's budget, spent as it reads. */
export interface ScanBudget {
  spend(rows: number): void;
  /** True once the rows or the time are used up. */
  spent(): boolean;
  /** What is left of the time, for a query's maxTimeMS (at least 1 ms). */
  msLeft(): number;
  /** Called between two reads: waits while the integrator is ahead of its pace, never past the time limit. */
  paced(): Promise<void>;
}

/** The budget of one page of `integratorId`'s listing. */
export function scanBudget(bounds: ListingBounds, integratorId: string, now: () => number = Date.now): ScanBudget {
  let rowsLeft = bounds.scanRows;
  const deadline = now() + bounds.timeMs;
  const { pace } = bounds;
  return {
    spend(rows) {
      rowsLeft -= rows;
      pace?.spend(integratorId, rows);
    },
    spent: () => rowsLeft <= 0 || now() >= deadline,
    msLeft: () => Math.max(1, deadline - now()),
    async paced() {
      const wait = Math.min(pace?.waitMs(integratorId) ?? 0, deadline - now());
      if (wait > 0) await sleep(Math.ceil(wait));
    },
  };
}

/**
 * Rows of a listing read under its budget: `resumeAt` when the budget stopped the read before the page was full (a
 * cursor goes on from there; the page may hold fewer than `limit` rows, none at all).
 */
export type BoundedRows<T> = T[] & { readonly resumeAt?: Position };

/** `rows` marked as stopped by the budget at `resumeAt` (a property the array carries, not an element). */
export function stoppedAt<T>(rows: T[], resumeAt: Position): BoundedRows<T> {
  return Object.defineProperty(rows, 'resumeAt', { value: resumeAt, enumerable: false });
}

/**
 * Where a page whose key reader stopped for its budget goes on: the position just above the reader's `below` in
 * newest-first order, so every row strictly after it is at or below `below` (a stop between two rows of the same
 * createdAt resumes with the row at `below` itself: an id never holds a NUL), from the last page read.
 */
export const resumeAfterStop = (stop: ReaderStop): Position => ({
  createdAt: new Date(stop.below.c),
  id: `${stop.below.i}\u0000`,
  page: stop.page,
});

/** The bounds configured (HERALD_LISTING_SCAN_ROWS, HERALD_LISTING_TIME_MS, HERALD_LISTING_SCAN_RATE): a pace each. */
export const listingBoundsOf = (config: {
  HERALD_LISTING_SCAN_ROWS: number;
  HERALD_LISTING_TIME_MS: number;
  HERALD_LISTING_SCAN_RATE: number;
}): ListingBounds => ({
  scanRows: config.HERALD_LISTING_SCAN_ROWS,
  timeMs: config.HERALD_LISTING_TIME_MS,
  pace: createScanPace(config.HERALD_LISTING_SCAN_RATE),
});

/**
 * A listing page whose first query ran out of time before it read a row: there is nothing to answer and no position to
 * go on from (a cursor that did not move would send the client round in circles). The API answers 503 with
 * Retry-After.
 */
export class ListingTimeout extends Error {
  override readonly name = 'ListingTimeout';
}

/**
 * The server stopped a query at its maxTimeMS: MaxTimeMSExpired (50), or, from FerretDB 1.24 on SQLite when the
 * interruption lands inside SQLite, an InternalError (1) raised by its handleMaxTimeMSError.
 */
export const isMaxTimeExpired = (err: unknown): boolean =>
  err instanceof MongoServerError &&
  (err.code === 50 || (err.code === 1 && err.message.includes('handleMaxTimeMSError')));
