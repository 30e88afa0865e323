import type { EventListFilters } from '../events-query.js';
import { belowReader, headId, locate, readPage, toPos, type PageCollections } from './docs.js';
import { journalRows } from './journal.js';
import { cmp, keyFor, matches, posOf, type PageRow, type Pos, type RowBase } from './rows.js';

/** A listed row and the sealed page a cursor after it should start from. */
export interface PagedRow {
  row: PageRow;
  page: number;
}

/**
 * Up to `limit` rows of the query's key, newest first, strictly older than `position` (and within the date
 * bounds).
 */
export async function listFromPages(
  c: PageCollections,
  integratorId: string,
  f: EventListFilters,
  position: (Pos & { page?: number }) | undefined,
  limit: number,
): Promise<PagedRow[]> {
  const before: Pos | undefined = f.createdBefore && { c: f.createdBefore.getTime(), i: '' };
  const bound = position && before ? (cmp(position, before) < 0 ? position : before) : (position ?? before);
  return await readKey<PageRow>(c, keyFor(integratorId, f), {
    keep: (r) => matches(r, f),
    bound,
    hint: position?.page,
    afterMs: f.createdAfter?.getTime(),
    limit,
  });
}

/** What readKey reads: rows passing `keep`, strictly older than `bound`, newer than `afterMs`; `hint`: a cursor's page. */
export interface KeyQuery<R extends RowBase> {
  keep: (row: R) => boolean;
  bound?: Pos;
  hint?: number;
  afterMs?: number;
  limit: number;
}

/**
 * Up to `limit` rows of one listing key (any row shape), newest first. Reads the integrator's journal first, then the
 * key's head, then sealed pages from the newest one that can hold older rows downwards, and stops once `limit` rows
 * are final: a lower page holds only rows at or below the current page's `below`. In the order rows move (journal →
 * head → pages, each added to the next before it leaves the last): a row moved meanwhile is then seen twice (and
 * deduplicated), never missed.
 */
export async function readKey<R extends RowBase>(
  c: PageCollections,
  key: string,
  q: KeyQuery<R>,
): Promise<{ row: R; page: number }[]> {
  const { bound, limit } = q;
  const journal = await journalRows<R>(c, key);
  const head = (await c.heads.findOne({ _id: headId(key) })) as { e: R[]; pages: number } | null;
  const count = head?.pages ?? 0;
  const keep = (r: R) => q.keep(r) && (!bound || cmp(posOf(r), bound) < 0);

  const id = (r: R) => `${r.c.getTime()}|${r.i}`;
  // One entry per row: a row seen in the head and in a page (a sealer moved it meanwhile) counts once.
  const found = new Map<string, { row: R; page: number }>(
    [...journal, ...(head?.e ?? [])].filter(keep).map((row) => [id(row), { row, page: -1 }]),
  );
  const belows: { k: number; below: Pos | null }[] = [];
  let floor: Pos | null = null;
  let k = bound && count > 0 ? await startPage(c, key, bound, count, q.hint) : count - 1;
  for (; k >= 0; k -= 1) {
    const page = await readPage(c, key, k);
    if (!page) break;
    for (const row of page.e as unknown as R[]) if (keep(row)) found.set(id(row), { row, page: k });
    floor = page.below && toPos(page.below);
    belows.push({ k, below: floor });
    if (floor && q.afterMs !== undefined && floor.c <= q.afterMs) floor = null; // lower pages: all too old
    if (!floor) break;
    let final = 0;
    for (const { row } of found.values()) if (cmp(posOf(row), floor) > 0) final += 1;
    if (final >= limit) break;
  }
  // Rows at or below the last page's `below` may have neighbours in unread pages: they wait for the next page.
  const listed = [...found.values()].filter((r) => !floor || cmp(posOf(r.row), floor) > 0);
  listed.sort((a, b) => cmp(posOf(b.row), posOf(a.row)));
  return listed.slice(0, limit).map(({ row, page }) => {
    if (page >= 0) return { row, page };
    // A journal or head row: the newest page read that covers it, else the top page (a cursor then checks upwards).
    const cover = belows.find((b) => !b.below || cmp(b.below, posOf(row)) < 0);
    return { row, page: cover ? cover.k : Math.max(0, count - 1) };
  });
}

/**
 * The newest page that may hold rows older than `bound`: a cursor's page, moved up while the page above also
 * may (pages sealed since the cursor was issued); without a cursor, a binary search over the pages. The pages'
 * `below`s come from the key's page directory (docs.ts), not from reading whole pages.
 */
async function startPage(c: PageCollections, key: string, bound: Pos, count: number, hint?: number): Promise<number> {
  if (hint === undefined) return await locate(c, key, bound, count);
  let k = Math.min(hint, count - 1);
  const belowOf = belowReader(c, key);
  while (k + 1 < count) {
    const below = await belowOf(k + 1);
    if (!below || cmp(toPos(below), bound) >= 0) break;
    k += 1;
  }
  return k;
}
