import type { EventDoc } from '../documents.js';
import type { PageCollections } from './docs.js';
import { addToHead, headsDue, rowsByKey, sealTriggered, writeUpserts } from './heads.js';
import { fileIntoJournals, type Filed } from './journal.js';
import { keysOf, toRow } from './rows.js';
import { seal } from './seal.js';

export type { Filed } from './journal.js';

const eventEntries = (event: EventDoc): Filed[] => {
  const row = toRow(event);
  return keysOf(event).map((key) => ({ key, row }));
};

/**
 * Files rows under their keys: into their integrators' journals, one small update each (src/store/event-pages/
 * journal.ts), from where they move into the keys' heads and sealed pages in batches.
 */
export async function fileRows(c: PageCollections, entries: readonly Filed[]): Promise<void> {
  await fileIntoJournals(c, entries);
}

/** Files one stored event into the listing, with `extra` rows (its deliveries') in the same bulkWrite. */
export async function indexEvent(c: PageCollections, event: EventDoc, extra: readonly Filed[] = []): Promise<void> {
  await fileRows(c, [...eventEntries(event), ...extra]);
}

/**
 * The bulk equivalent for many rows (seeding, benchmarks): the same heads and pages, with fewer commands, past the
 * journals. A key with at least `sealAt` rows in the batch is sealed with them at once; the others go to their heads
 * in one bulkWrite and are checked for sealing exactly as a move out of a journal would check them.
 */
export async function fileRowsBulk(c: PageCollections, entries: readonly Filed[]): Promise<void> {
  const byKey = rowsByKey(entries);
  const small = [...byKey].filter(([, rows]) => rows.length < c.sizes.sealAt);
  // In chunks: FerretDB v1.24 (SQLite) was seen to stall, idle, on one `update` of a few thousand upserts that
  // found some heads existing (bench seeding's second batch).
  for (let n = 0; n < small.length; n += HEAD_CHUNK)
    await writeUpserts(
      c,
      small.slice(n, n + HEAD_CHUNK).map(([k, rows]) => addToHead(k, rows)),
    );
  for (const [k, rows] of byKey) if (rows.length >= c.sizes.sealAt) while (!(await seal(c, k, rows))) await pause();
  const smallKeys = new Set(small.map(([k]) => k));
  await sealTriggered(
    c,
    headsDue(
      c,
      entries.filter(({ key }) => smallKeys.has(key)),
    ),
  );
}

/** fileRowsBulk for many events. */
export async function indexEvents(c: PageCollections, events: readonly EventDoc[]): Promise<void> {
  await fileRowsBulk(c, events.flatMap(eventEntries));
}

const HEAD_CHUNK = 100;
const pause = () => new Promise((r) => setTimeout(r, 20));
