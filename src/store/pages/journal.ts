import type { AnyBulkWriteOperation } from 'mongodb';
import {
  integratorOf,
  journalId,
  suffixOf,
  type JournalDoc,
  type JournalEntry,
  type PageCollections,
} from './documents.js';
import { coalesce } from '../coalesce.js';
import { HEAD_UPSERTS_PER_WRITE, HOT_COMMANDS_IN_FLIGHT } from '../server-limits.js';
import { addToHead, headsDue, rowsByKey, sealTriggered, triggers, writeUpserts } from './heads.js';
import type { RowBase } from './rows.js';
import { withLease } from './seal.js';

/** A row to file under a listing key (an event's, or a delivery's: src/store/listing). */
export interface Filed {
  key: string;
  row: RowBase;
}

/**
 * The journal entries of `filed`, per integrator: one entry per row, naming every key it is filed under in filing
 * order, so that filing the same rows again builds equal entries (an idempotent `$addToSet`).
 */
function entriesOf(filed: readonly Filed[]): Map<string, JournalEntry[]> {
  const byRow = new Map<RowBase, { integratorId: string; entry: JournalEntry }>();
  for (const { key, row } of filed) {
    const at =
      byRow.get(row) ?? byRow.set(row, { integratorId: integratorOf(key), entry: { k: [], r: row } }).get(row)!;
    at.entry.k.push(suffixOf(key));
  }
  const out = new Map<string, JournalEntry[]>();
  for (const { integratorId, entry } of byRow.values())
    (out.get(integratorId) ?? out.set(integratorId, []).get(integratorId)!).push(entry);
  return out;
}

type JournalAppend = { integratorId: string; entries: JournalEntry[] };

/**
 * The journal writer of each set of page collections: concurrent filings share one bulkWrite (src/store/coalesce.ts)
 * with one update per integrator, whose `$addToSet` carries the entries of every filing for it. Each entry is added as
 * its own filing would add it (idempotent), so a crash mid-write leaves each filing written or to be written again.
 */
const journalWriters = new WeakMap<PageCollections, (append: JournalAppend) => Promise<void>>();

function journalWriterOf(c: PageCollections): (append: JournalAppend) => Promise<void> {
  let writer = journalWriters.get(c);
  if (!writer) {
    writer = coalesce(
      async (appends: JournalAppend[]) => {
        const byIntegrator = new Map<string, JournalEntry[]>();
        for (const { integratorId, entries } of appends)
          (byIntegrator.get(integratorId) ?? byIntegrator.set(integratorId, []).get(integratorId)!).push(...entries);
        await writeUpserts<JournalDoc>(
          c,
          [...byIntegrator].map(([integratorId, entries]): AnyBulkWriteOperation<JournalDoc> => ({
            updateOne: {
              filter: { _id: journalId(integratorId) },
              update: { $addToSet: { e: { $each: entries } } },
              upsert: true,
            },
          })),
        );
        return appends.map(() => ({ ok: true as const, value: undefined }));
      },
      { maxInFlight: HOT_COMMANDS_IN_FLIGHT, maxItems: HEAD_UPSERTS_PER_WRITE },
    );
    journalWriters.set(c, writer);
  }
  return writer;
}

/**
 * Files rows into their integrators' journals: one small update per integrator (whatever the number of keys), shared
 * with the filings made meanwhile, then, about once per `journalEvery` entries, checks the journal and moves it into
 * the keys' heads when full.
 */
export async function fileIntoJournals(c: PageCollections, filed: readonly Filed[]): Promise<void> {
  const byIntegrator = entriesOf(filed);
  const write = journalWriterOf(c);
  await Promise.all([...byIntegrator].map(async ([integratorId, entries]) => await write({ integratorId, entries })));
  for (const [integratorId, entries] of byIntegrator) {
    if (!entries.some((e) => journalDue(c, e.r.i, integratorId))) continue;
    const journal = await c.journals.findOne({ _id: journalId(integratorId) });
    if (journal && journal.e.length >= c.sizes.journalAt) await moveJournal(c, integratorId);
  }
}

/** Whether filing this row checks its integrator's journal (deterministic: round-trips.test.ts counts them). */
export const journalDue = (c: Pick<PageCollections, 'sizes'>, rowId: string, integratorId: string): boolean =>
  triggers(rowId, journalId(integratorId), c.sizes.journalEvery);

/**
 * Moves the journal's entries into their keys' heads under the journal's lease (one bulkWrite), then pulls exactly the
 * moved entries out of the journal; entries added meanwhile stay. A crash between the two leaves rows in both: readers
 * count a row once, and the next move adds them to the heads again (no change). Then seals the heads whose turn it is.
 * Returns false when another mover holds the lease.
 */
export async function moveJournal(c: PageCollections, integratorId: string): Promise<boolean> {
  const id = journalId(integratorId);
  const due = await withLease(c, id, async () => {
    const moved = (await c.journals.findOne({ _id: id }))?.e ?? [];
    if (moved.length === 0) return [];
    const filed = moved.flatMap((e) => e.k.map((suffix) => ({ key: `${integratorId}|${suffix}`, row: e.r })));
    await writeUpserts(
      c,
      [...rowsByKey(filed)].map(([key, rows]) => addToHead(key, rows)),
    );
    await c.journals.updateOne({ _id: id }, { $pullAll: { e: moved } });
    return headsDue(c, filed);
  });
  if (due === null) return false;
  await sealTriggered(c, due);
  return true;
}

/** The journal rows of one key (the reader reads them before the key's head and pages). */
export async function journalRows<R extends RowBase>(c: PageCollections, key: string): Promise<R[]> {
  const suffix = suffixOf(key);
  const journal = await c.journals.findOne({ _id: journalId(integratorOf(key)) });
  return (journal?.e ?? []).filter((e) => e.k.includes(suffix)).map((e) => e.r as R);
}
