import { HEAD_UPSERTS_PER_WRITE } from '../server-limits.js';
import type { PageCollections } from './documents.js';
import { addToHead, headsDue, rowsByKey, sealTriggered, writeUpserts } from './heads.js';
import { fileIntoJournals, type Filed } from './journal.js';
import { seal } from './seal.js';

/** A lease holder is sealing the key: the bulk filer tries again after this pause. */
const SEAL_RETRY_MS = 20;

/**
 * Files rows under their keys: into their integrators' journals, one small update each (journal.ts), from where they
 * move into the keys' heads and sealed pages in batches.
 */
export async function fileRows(c: PageCollections, entries: readonly Filed[]): Promise<void> {
  await fileIntoJournals(c, entries);
}

/**
 * The bulk equivalent for many rows (seeding, benchmarks): the same heads and pages, with fewer commands, past the
 * journals. A key with at least `sealAt` rows in the batch is sealed with them at once; the others go to their heads
 * in bulkWrites of HEAD_UPSERTS_PER_WRITE and are checked for sealing exactly as a move out of a journal would check
 * them.
 */
export async function fileRowsBulk(c: PageCollections, entries: readonly Filed[]): Promise<void> {
  const byKey = rowsByKey(entries);
  const small = [...byKey].filter(([, rows]) => rows.length < c.sizes.sealAt);
  for (let n = 0; n < small.length; n += HEAD_UPSERTS_PER_WRITE)
    await writeUpserts(
      c,
      small.slice(n, n + HEAD_UPSERTS_PER_WRITE).map(([k, rows]) => addToHead(k, rows)),
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

const pause = () => new Promise((r) => setTimeout(r, SEAL_RETRY_MS));
