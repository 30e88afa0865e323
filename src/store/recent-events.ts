import type { EventDoc } from './documents.js';

/** How long, how many and how many body bytes of the events a process stored it keeps at most. */
const KEEP_MS = 60_000;
const MAX_EVENTS = 2_000;
const MAX_BODY_BYTES = 16 * 1024 * 1024;

/**
 * The events this process stored in the last minute (bounded in count and bytes), as stored: the API's own worker
 * (src/temporal/api-worker.ts) reads a delivery's event from here instead of from the database. Correct because an
 * event never changes once stored (its createdAt is settled before it is kept, src/delivery/ingest.ts) and the memory
 * only saves a read: a process that restarts, or a worker elsewhere, reads the database as before.
 */
export function createRecentEvents(now: () => number = Date.now) {
  const kept = new Map<string, { event: EventDoc; at: number }>();
  let bytes = 0;
  const drop = (id: string): void => {
    const entry = kept.get(id);
    if (!entry) return;
    bytes -= entry.event.body.length;
    kept.delete(id);
  };
  const trim = (): void => {
    for (const [id, { at }] of kept) {
      if (kept.size <= MAX_EVENTS && bytes <= MAX_BODY_BYTES && now() - at < KEEP_MS) break;
      drop(id); // the oldest first: a Map iterates in insertion order
    }
  };
  return {
    keep(event: EventDoc): void {
      drop(event._id);
      kept.set(event._id, { event, at: now() });
      bytes += event.body.length;
      trim();
    },
    get(id: string): EventDoc | undefined {
      trim();
      return kept.get(id)?.event;
    },
  };
}
