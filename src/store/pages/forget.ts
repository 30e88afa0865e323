import { deleteByIds, findByIds } from '../by-ids.js';
import { BACKGROUND_IDS_PER_WRITE } from '../server-limits.js';
import { insertEach } from '../insert-each.js';
import {
  belowReader,
  directoryId,
  headId,
  integratorOf,
  journalId,
  locate,
  pageId,
  readPage,
  suffixOf,
  type HeadDoc,
  type PageCollections,
} from './documents.js';
import { cmp, posOf, type Pos, type RowBase } from './rows.js';
import { withLease } from './seal.js';

/** A row retention removes, and every key it is filed under (a row is the same object in each of its keys). */
export interface ForgetRow {
  row: RowBase;
  keys: readonly string[];
}

/** A lease older than this belongs to a holder that died (seal.ts uses the same). */
const LEASE_MS = 30_000;
const LEASE_TRIES = 40;
const LEASE_PAUSE_MS = 50;
const pause = () => new Promise((r) => setTimeout(r, LEASE_PAUSE_MS));
/**
 * Keys tidied at once. The purge runs beside live deliveries on the same connection pool and server: a batch's
 * hundreds of keys (one per event, per account…) sent at once would queue every live command behind them.
 */
const KEYS_IN_FLIGHT = 4;

/**
 * Removes rows from every key they are filed under: the integrator's journal (under its lease, so no move carries a
 * row back into a head), then each key's head and sealed pages under the key's lease (no sealer meanwhile). Sealed
 * pages left empty at the bottom of a key are deleted and its head's `base` raised; a key left with nothing is deleted
 * whole. Idempotent: a crash leaves rows to remove again. Returns the ids of the rows removed from all their keys (a
 * key whose lease stayed busy keeps its rows for the next run).
 */
export async function forgetRows(
  c: PageCollections,
  integratorId: string,
  rows: readonly ForgetRow[],
): Promise<Set<string>> {
  if (rows.length === 0) return new Set();
  const ids = new Set(rows.map((r) => r.row.i));
  const byKey = new Map<string, RowBase[]>();
  for (const { row, keys } of rows) for (const key of keys) (byKey.get(key) ?? byKey.set(key, []).get(key)!).push(row);
  const journal = journalId(integratorId);
  for (let n = 0; n < LEASE_TRIES; n += 1) {
    const busy = await withLease(c, journal, async () => {
      const entries = (await c.journals.findOne({ _id: journal }))?.e ?? [];
      const gone = entries.filter((e) => ids.has(e.r.i));
      if (gone.length > 0) await c.journals.updateOne({ _id: journal }, { $pullAll: { e: gone } });
      return await forgetInKeys(c, byKey);
    });
    if (busy) return new Set(rows.filter((r) => !r.keys.some((k) => busy.has(k))).map((r) => r.row.i));
    await pause();
  }
  return new Set();
}

/**
 * Takes the leases of `keys`, BACKGROUND_IDS_PER_WRITE to an insert (short writes beside live ones); returns those
 * taken and a release. Dead holders' leases are cleared.
 */
async function takeLeases(c: PageCollections, keys: readonly string[]) {
  const at = new Date();
  const taken: string[] = [];
  const release = async () => void (await deleteByIds(c.locks, taken));
  try {
    for (let n = 0; n < keys.length; n += BACKGROUND_IDS_PER_WRITE) {
      const chunk = keys.slice(n, n + BACKGROUND_IDS_PER_WRITE);
      const outcomes = await insertEach(
        c.locks,
        chunk.map((_id) => ({ _id, at })),
      );
      taken.push(...chunk.filter((_, k) => outcomes[k]?.ok === true && outcomes[k].value === 'inserted'));
    }
    const held = new Set(taken);
    const refused = keys.filter((k) => !held.has(k));
    await deleteByIds(c.locks, refused, { at: { $lt: new Date(at.getTime() - LEASE_MS) } });
  } catch (err) {
    await release().catch(() => undefined); // those taken before a chunk failed go back now, not after LEASE_MS
    throw err;
  }
  return { taken, release };
}

/** Removes each key's rows from its head and pages; returns the keys left alone because their lease stayed busy. */
async function forgetInKeys(c: PageCollections, byKey: Map<string, RowBase[]>): Promise<Set<string>> {
  let waiting = [...byKey.keys()];
  for (let n = 0; n < LEASE_TRIES && waiting.length > 0; n += 1) {
    if (n > 0) await pause();
    const { taken, release } = await takeLeases(c, waiting);
    try {
      const heads = await findByIds(c.heads, taken.map(headId));
      for (let from = 0; from < taken.length; from += KEYS_IN_FLIGHT) {
        const keys = taken.slice(from, from + KEYS_IN_FLIGHT);
        await Promise.all(
          keys.map(async (key, k) => await forgetInKey(c, key, heads[from + k] ?? null, byKey.get(key)!)),
        );
      }
    } finally {
      await release();
    }
    waiting = waiting.filter((k) => !taken.includes(k));
  }
  return new Set(waiting);
}

/** One key, under its lease: the rows out of its head and the pages that cover them; then the bottom tidied. */
async function forgetInKey(c: PageCollections, key: string, head: HeadDoc | null, rows: RowBase[]): Promise<void> {
  if (!head) return;
  const ids = new Set(rows.map((r) => r.i));
  const headRows = head.e ?? []; // a head made by a bulk seal may have no `e` yet
  const headLeft = headRows.filter((r) => !ids.has(r.i));
  const count = head.pages;
  let base = head.base ?? 0;
  if (count > base) {
    // The page whose range covers each row, and the lowest page (late rows filed there after retention, seal.ts).
    const byPage = new Map<number, RowBase[]>();
    const belowOf = belowReader(c, key);
    for (const row of rows) {
      const k = Math.max(base, await locate(c, key, posOf(row), count, belowOf));
      (byPage.get(k) ?? byPage.set(k, []).get(k)!).push(row);
      if (k !== base) (byPage.get(base) ?? byPage.set(base, []).get(base)!).push(row);
    }
    // One page a command: each rewrites a whole page of rows, a write live ones wait for (BACKGROUND_IDS_PER_WRITE).
    for (const [k, pageRows] of byPage)
      await c.sealed.updateOne({ _id: pageId(key, k) }, { $pullAll: { e: pageRows } });
    base = await dropEmptyBottom(c, key, base, count);
  }
  if (base >= count && headLeft.length === 0) {
    await c.pages.deleteMany({ _id: { $in: [headId(key), directoryId(key)] } });
    return;
  }
  const reset = base >= count ? { pages: 0, base: 0 } : { base };
  if (base >= count) await c.directories.deleteOne({ _id: directoryId(key) });
  await c.heads.updateOne({ _id: headId(key) }, { $pullAll: { e: headRows.filter((r) => ids.has(r.i)) }, $set: reset });
}

/** Deletes the key's empty sealed pages from `base` upwards; returns the new base (count when every page is gone). */
async function dropEmptyBottom(c: PageCollections, key: string, base: number, count: number): Promise<number> {
  let k = base;
  for (; k < count; k += 1) {
    const page = await readPage(c, key, k);
    if (page && page.e.length > 0) break;
  }
  await deleteByIds(
    c.sealed,
    range(base, k).map((n) => pageId(key, n)),
  );
  return k;
}

const range = (from: number, to: number): number[] => Array.from({ length: to - from }, (_, n) => from + n);

/** Pages an oldestRows call reads at most (a key whose oldest rows are all kept is read this far, no further). */
const OLDEST_PAGES = 32;

/**
 * Up to `limit` rows of `key` older than `beforeMs`, oldest first, strictly after `after`: the sealed pages from the
 * lowest left (or the page covering `after`) upwards, then the head and the journal.
 */
export async function oldestRows<R extends RowBase>(
  c: PageCollections,
  key: string,
  beforeMs: number,
  limit: number,
  after?: Pos,
): Promise<R[]> {
  const head = await c.heads.findOne({ _id: headId(key) });
  const count = head?.pages ?? 0;
  const base = head?.base ?? 0;
  const keep = (r: RowBase) => r.c.getTime() < beforeMs && (!after || cmp(posOf(r), after) > 0);
  const out: RowBase[] = [];
  let k = after && count > base ? Math.max(base, await locate(c, key, after, count)) : base;
  for (let read = 0; k < count && out.length < limit && read < OLDEST_PAGES; k += 1, read += 1) {
    const page = await readPage(c, key, k);
    if (page?.below && page.below.c.getTime() >= beforeMs) break;
    out.push(...(page?.e ?? []).filter(keep));
  }
  if (k >= count) {
    const journal = (await c.journals.findOne({ _id: journalId(integratorOf(key)) }))?.e ?? [];
    const suffix = suffixOf(key);
    out.push(
      ...(head?.e ?? []).filter(keep),
      ...journal
        .filter((e) => e.k.includes(suffix))
        .map((e) => e.r)
        .filter(keep),
    );
  }
  // One row per id; where one is stored in two shapes (a delivery filed by two versions), the one with more fields,
  // from which the other can be derived (delivery-rows.ts, storedShapesOf).
  const unique = new Map<string, RowBase>();
  for (const r of out) {
    const had = unique.get(r.i);
    if (!had || Object.keys(r).length > Object.keys(had).length) unique.set(r.i, r);
  }
  return ([...unique.values()] as R[]).sort((a, b) => cmp(posOf(a), posOf(b))).slice(0, limit);
}
