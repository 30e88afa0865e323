import { createHash } from 'node:crypto';
import type { AnyBulkWriteOperation, Collection } from 'mongodb';
import { headId, type HeadDoc, type PageCollections } from './documents.js';
import type { RowBase } from './rows.js';
import { seal } from './seal.js';

/** Whether this row's write checks a document (a key's head, an integrator's journal): 1 in `every`, by hash. */
export const triggers = (rowId: string, docId: string, every: number): boolean =>
  createHash('sha1').update(`${rowId}|${docId}`).digest().readUInt32BE(0) % every === 0;

/** Idempotent: `$addToSet` of the same rows changes nothing. */
export const addToHead = (key: string, rows: readonly RowBase[]): AnyBulkWriteOperation<HeadDoc> => ({
  updateOne: {
    filter: { _id: headId(key) },
    update: { $addToSet: { e: { $each: rows as RowBase[] } }, $setOnInsert: { pages: 0 } },
    upsert: true,
  },
});

/** One bulkWrite; two writers creating the same document race on its `_id`: the loser's ops are idempotent, rerun. */
export async function writeUpserts<T extends { _id: string }>(
  c: PageCollections,
  ops: AnyBulkWriteOperation<T>[],
): Promise<void> {
  if (ops.length === 0) return;
  const coll = c.pages as unknown as Collection<T>;
  try {
    await coll.bulkWrite(ops, { ordered: false });
  } catch (err) {
    if ((err as { code?: number }).code !== 11000 && !/E11000/.test(String(err))) throw err;
    await coll.bulkWrite(ops, { ordered: false });
  }
}

/** Seals the keys whose turn it is and whose head is full enough. */
export async function sealTriggered(c: PageCollections, keys: Iterable<string>): Promise<void> {
  for (const key of new Set(keys)) {
    const head = await c.heads.findOne({ _id: headId(key) });
    if (head && head.e.length >= c.sizes.sealAt) await seal(c, key);
  }
}

/** The rows of `filed` grouped by their key, in filing order. */
export function rowsByKey(filed: readonly { key: string; row: RowBase }[]): Map<string, RowBase[]> {
  const byKey = new Map<string, RowBase[]>();
  for (const { key, row } of filed) (byKey.get(key) ?? byKey.set(key, []).get(key)!).push(row);
  return byKey;
}

/** The keys among `filed` whose turn it is to have their head checked. */
export const headsDue = (c: PageCollections, filed: readonly { key: string; row: RowBase }[]): string[] =>
  filed.filter(({ key, row }) => triggers(row.i, key, c.sizes.sealEvery)).map(({ key }) => key);
