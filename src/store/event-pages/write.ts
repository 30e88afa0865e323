import { createHash } from 'node:crypto';
import type { AnyBulkWriteOperation } from 'mongodb';
import type { EventDoc } from '../documents.js';
import { headId, type HeadDoc, type PageCollections } from './docs.js';
import { keysOf, toRow, type PageRow } from './rows.js';
import { seal } from './seal.js';

/** Whether this row's write checks its key's head: deterministic per (event, key), 1 in `sealEvery`. */
const triggers = (c: PageCollections, eventId: string, key: string): boolean =>
  createHash('sha1').update(`${eventId}|${key}`).digest().readUInt32BE(0) % c.sizes.sealEvery === 0;

const addToHead = (key: string, rows: PageRow[]): AnyBulkWriteOperation<HeadDoc> => ({
  updateOne: {
    filter: { _id: headId(key) },
    update: { $addToSet: { e: { $each: rows } }, $setOnInsert: { pages: 0 } },
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
  for (const key of keys) {
    const head = await c.heads.findOne({ _id: headId(key) });
    if (head && head.e.length >= c.sizes.sealAt) await seal(c, key);
  }
}

/**
 * Files one stored event into the listing: one bulkWrite adding its row to the head of each of its keys
 * (idempotent: `$addToSet` of the same row), then, about once per `sealEvery` rows of a key, seals that key's head.
 */
export async function indexEvent(c: PageCollections, event: EventDoc): Promise<void> {
  const row = toRow(event);
  const keys = keysOf(event);
  await writeHeads(
    c,
    keys.map((k) => addToHead(k, [row])),
  );
  await sealTriggered(
    c,
    keys.filter((k) => triggers(c, event._id, k)),
  );
}

/**
 * The bulk equivalent for many events (seeding, benchmarks): the same rows, heads and pages, with fewer commands.
 * A key with at least `sealAt` rows in the batch is sealed with them at once; the others go to their heads in one
 * bulkWrite and are checked for sealing exactly as indexEvent would check them.
 */
export async function indexEvents(c: PageCollections, events: readonly EventDoc[]): Promise<void> {
  const byKey = new Map<string, PageRow[]>();
  const due = new Set<string>();
  for (const e of events) {
    const row = toRow(e);
    for (const k of keysOf(e)) {
      (byKey.get(k) ?? byKey.set(k, []).get(k)!).push(row);
      if (triggers(c, e._id, k)) due.add(k);
    }
  }
  const small = [...byKey].filter(([, rows]) => rows.length < c.sizes.sealAt);
  await writeHeads(
    c,
    small.map(([k, rows]) => addToHead(k, rows)),
  );
  for (const [k, rows] of byKey) if (rows.length >= c.sizes.sealAt) while (!(await seal(c, k, rows))) await pause();
  await sealTriggered(
    c,
    small.map(([k]) => k).filter((k) => due.has(k)),
  );
}

const pause = () => new Promise((r) => setTimeout(r, 20));
