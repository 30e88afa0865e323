import { createHash } from 'node:crypto';
import type { AnyBulkWriteOperation } from 'mongodb';
import type { EventDoc } from '../documents.js';
import { headId, type HeadDoc, type PageCollections } from './docs.js';
import { keysOf, toRow, type PageRow, type RowBase } from './rows.js';
import { seal } from './seal.js';

/** Whether this row's write checks its key's head: deterministic per (row id, key), 1 in `sealEvery`. */
export const triggers = (c: Pick<PageCollections, 'sizes'>, rowId: string, key: string): boolean =>
  createHash('sha1').update(`${rowId}|${key}`).digest().readUInt32BE(0) % c.sizes.sealEvery === 0;

const addToHead = (key: string, rows: RowBase[]): AnyBulkWriteOperation<HeadDoc> => ({
  updateOne: {
    filter: { _id: headId(key) },
    update: { $addToSet: { e: { $each: rows as PageRow[] } }, $setOnInsert: { pages: 0 } },
    upsert: true,
  },
});

/** One bulkWrite; two writers creating the same head race on its `_id`: the loser's ops are idempotent, rerun. */
async function writeHeads(c: PageCollections, ops: AnyBulkWriteOperation<HeadDoc>[]): Promise<void> {
  if (ops.length === 0) return;
  try {
    await c.heads.bulkWrite(ops, { ordered: false });
  } catch (err) {
    if ((err as { code?: number }).code !== 11000 && !/E11000/.test(String(err))) throw err;
    await c.heads.bulkWrite(ops, { ordered: false });
  }
}

/** Seals the keys whose turn it is and whose head is full enough. */
async function sealTriggered(c: PageCollections, keys: readonly string[]): Promise<void> {
  for (const key of new Set(keys)) {
    const head = await c.heads.findOne({ _id: headId(key) });
    if (head && head.e.length >= c.sizes.sealAt) await seal(c, key);
  }
}

/** A row to file under a listing key (an event's, or a delivery's: src/store/delivery-pages.ts). */
export interface Filed {
  key: string;
  row: RowBase;
}

const eventEntries = (event: EventDoc): Filed[] => {
  const row = toRow(event);
  return keysOf(event).map((key) => ({ key, row }));
};

/**
 * Files rows into their keys' heads: one bulkWrite adding each row to its key's head (idempotent: `$addToSet` of the
 * same row), then, about once per `sealEvery` rows of a key, seals that key's head.
 */
export async function fileRows(c: PageCollections, entries: readonly Filed[]): Promise<void> {
  const byKey = new Map<string, RowBase[]>();
  for (const { key, row } of entries) (byKey.get(key) ?? byKey.set(key, []).get(key)!).push(row);
  await writeHeads(
    c,
    [...byKey].map(([k, rows]) => addToHead(k, rows)),
  );
  await sealTriggered(
    c,
    entries.filter(({ key, row }) => triggers(c, row.i, key)).map(({ key }) => key),
  );
}

/** Files one stored event into the listing, with `extra` rows (its deliveries') in the same bulkWrite. */
export async function indexEvent(c: PageCollections, event: EventDoc, extra: readonly Filed[] = []): Promise<void> {
  await fileRows(c, [...eventEntries(event), ...extra]);
}

/**
 * The bulk equivalent for many rows (seeding, benchmarks): the same rows, heads and pages, with fewer commands.
 * A key with at least `sealAt` rows in the batch is sealed with them at once; the others go to their heads in one
 * bulkWrite and are checked for sealing exactly as fileRows would check them.
 */
export async function fileRowsBulk(c: PageCollections, entries: readonly Filed[]): Promise<void> {
  const byKey = new Map<string, RowBase[]>();
  const due = new Set<string>();
  for (const { key, row } of entries) {
    (byKey.get(key) ?? byKey.set(key, []).get(key)!).push(row);
    if (triggers(c, row.i, key)) due.add(key);
  }
  const small = [...byKey].filter(([, rows]) => rows.length < c.sizes.sealAt);
  // In chunks: FerretDB v1.24 (SQLite) was seen to stall, idle, on one `update` of a few thousand upserts that
  // found some heads existing (bench seeding's second batch).
  for (let n = 0; n < small.length; n += HEAD_CHUNK)
    await writeHeads(
      c,
      small.slice(n, n + HEAD_CHUNK).map(([k, rows]) => addToHead(k, rows)),
    );
  for (const [k, rows] of byKey) if (rows.length >= c.sizes.sealAt) while (!(await seal(c, k, rows))) await pause();
  await sealTriggered(
    c,
    small.map(([k]) => k).filter((k) => due.has(k)),
  );
}

/** fileRowsBulk for many events. */
export async function indexEvents(c: PageCollections, events: readonly EventDoc[]): Promise<void> {
  await fileRowsBulk(c, events.flatMap(eventEntries));
}

const HEAD_CHUNK = 100;
const pause = () => new Promise((r) => setTimeout(r, 20));
