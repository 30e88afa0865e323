import { isDuplicateKey } from '../duplicate-key.js';
import {
  directoryId,
  locate,
  pageId,
  readPage,
  stored,
  toPos,
  headId,
  type PageCollections,
  type StoredPos,
} from './documents.js';
import { cmp, newestFirstUnique, posOf, type RowBase } from './rows.js';

/** A lease older than this belongs to a sealer that died (sealing one key takes a few reads and two writes). */
const LEASE_MS = 30_000;

/**
 * Files `rows` into the sealed pages of `key` (whose head says `count` pages) and returns the new page count.
 * Rows newer than the top page fill it up to `pageRows`, then open new pages; an older (late) row joins the page
 * whose range covers it, so pages keep tiling the order (or the lowest page left, `base`, when retention deleted the
 * page that covered it). Every write is an `$addToSet`: running it again after a crash changes nothing. The caller
 * holds the key's lease.
 */
export async function fileIntoPages(
  c: PageCollections,
  key: string,
  count: number,
  rows: readonly RowBase[],
  base = 0,
): Promise<number> {
  // A sealer that died after writing pages but before updating the head left pages beyond its count.
  let n = count;
  while (await c.sealed.findOne({ _id: pageId(key, n) }, { projection: { _id: 1 } })) n += 1;
  const top = n > 0 ? await readPage(c, key, n - 1) : null;
  const oldestFirst = newestFirstUnique(rows).reverse();
  const writes = new Map<number, { rows: RowBase[]; hi?: StoredPos; below?: StoredPos | null }>();
  const into = (k: number) => writes.get(k) ?? writes.set(k, { rows: [] }).get(k)!;

  let cur = top ? { k: n - 1, size: top.e.length, hi: toPos(top.hi) } : null;
  for (const row of oldestFirst) {
    const pos = posOf(row);
    if (top && cmp(pos, toPos(top.hi)) <= 0) {
      into(Math.max(base, await locate(c, key, pos, n))).rows.push(row);
      continue;
    }
    if (!cur || cur.size >= c.sizes.pageRows) {
      const below = cur ? stored(cur.hi) : null;
      cur = { k: cur ? cur.k + 1 : 0, size: 0, hi: pos };
      into(cur.k).below = below;
    }
    cur.size += 1;
    cur.hi = pos;
    const w = into(cur.k);
    w.rows.push(row);
    w.hi = stored(pos);
  }
  if (writes.size === 0) return n;
  // Each page opened here enters the directory after it is written (ordered): an entry always names a stored page.
  const opened = [...writes].filter(([k, w]) => k > 0 && w.below !== undefined);
  await c.sealed.bulkWrite(
    [...writes].map(([k, w]) => ({
      updateOne: {
        filter: { _id: pageId(key, k) },
        update: {
          $addToSet: { e: { $each: w.rows } },
          ...(w.hi ? { $set: { hi: w.hi } } : {}),
          ...(w.below !== undefined ? { $setOnInsert: { below: w.below } } : {}),
        },
        upsert: true,
      },
    })),
    { ordered: true },
  );
  if (opened.length > 0)
    await c.directories.updateOne(
      { _id: directoryId(key) },
      { $set: Object.fromEntries(opened.map(([k, w]) => [`b.${k}`, w.below ?? null])) },
      { upsert: true },
    );
  return cur ? Math.max(n, cur.k + 1) : n;
}

/**
 * Moves the head's rows (and `extra` rows, for bulk filing) into sealed pages under the key's lease, then pulls
 * exactly the moved rows out of the head. Rows added meanwhile stay in the head. Returns false when another sealer
 * holds the lease (the rows wait for the next one).
 */
export async function seal(c: PageCollections, key: string, extra: readonly RowBase[] = []): Promise<boolean> {
  const done = await withLease(c, key, async () => {
    const head = await c.heads.findOne({ _id: headId(key) });
    const moved = head?.e ?? [];
    const count = await fileIntoPages(c, key, head?.pages ?? 0, [...moved, ...extra], head?.base ?? 0);
    await c.heads.updateOne(
      { _id: headId(key) },
      head ? { $pullAll: { e: moved }, $max: { pages: count } } : { $setOnInsert: { e: [] }, $max: { pages: count } },
      { upsert: true },
    );
    return true;
  });
  return done ?? false;
}

/**
 * Runs `work` under the lease named `id` (a key's for sealing, a journal's for moving it), or answers null when
 * another holder has it. The lease is an insert into the tiny `event_page_locks` collection.
 */
export async function withLease<T>(c: PageCollections, id: string, work: () => Promise<T>): Promise<T | null> {
  const lease = await acquire(c, id);
  if (!lease) return null;
  try {
    return await work();
  } finally {
    await c.locks.deleteOne({ _id: id, at: lease.at });
  }
}

async function acquire(c: PageCollections, id: string): Promise<{ at: Date } | null> {
  const at = new Date();
  try {
    await c.locks.insertOne({ _id: id, at });
    return { at };
  } catch (err) {
    if (!isDuplicateKey(err)) throw err;
    // Clears a dead holder's lease (only that one: the delete names its time); the next trigger takes it.
    await c.locks.deleteOne({ _id: id, at: { $lt: new Date(at.getTime() - LEASE_MS) } });
    return null;
  }
}
