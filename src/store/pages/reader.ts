import { belowReader, headId, locate, readPage, toPos, type PageCollections } from './documents.js';
import { journalRows } from './journal.js';
import { cmp, posOf, type Pos, type RowBase } from './rows.js';

/**
 * What a key's reader reads: rows passing `keep`, strictly older than `bound`, newer than `afterMs`; `hint`: a cursor's
 * page; `budget`: the rows it may examine and until when (each call reads at least one page).
 */
export interface KeyQuery<R extends RowBase> {
  keep: (row: R) => boolean;
  bound?: Pos;
  hint?: number;
  afterMs?: number;
  budget?: ReadBudget;
}

/** What a reader may examine (a listing's scan budget): it spends each page's rows as it reads them. */
export interface ReadBudget {
  spend(rows: number): void;
  spent(): boolean;
  /** Between two pages: waits while the listing's integrator is ahead of its pace (scan-pace.ts). */
  paced?(): Promise<void>;
}

/**
 * Where a reader stopped for its budget: every row newer than `below` was examined (and listed, if kept); rows at or
 * below it are not listed yet, and `page` (the last page read) is where a cursor goes on.
 */
export interface ReaderStop {
  below: Pos;
  page: number;
}

/** Up to `limit` rows of one listing key (any row shape), newest first: one call of a fresh keyReader's `next`. */
export async function readKey<R extends RowBase>(
  c: PageCollections,
  key: string,
  q: KeyQuery<R> & { limit: number },
): Promise<PagedRow<R>[]> {
  return await keyReader(c, key, q).next(q.limit);
}

/** A listed row of a key and the sealed page a cursor after it should start from. */
export interface PagedRow<R extends RowBase> {
  row: R;
  page: number;
}

/**
 * The rows of one listing key, newest first, in as many calls of `next` as the caller needs (a listing that filters
 * what it reads asks for more until its page is full). The first call reads the integrator's journal, then the key's
 * head; each call reads sealed pages from the newest one that can hold older rows downwards, where the last call
 * stopped, until `limit` rows are final: a lower page holds only rows at or below the current page's `below`. In the
 * order rows move (journal → head → pages, each added to the next before it leaves the last): a row moved meanwhile
 * is then seen twice (and deduplicated), never missed.
 */
export function keyReader<R extends RowBase>(
  c: PageCollections,
  key: string,
  q: KeyQuery<R>,
): { next: (limit: number) => Promise<PagedRow<R>[]>; stopped: () => ReaderStop | null } {
  // Strictly older than the bound, and than every row already listed (a page read later holds only older rows; this
  // keeps a row moved by a sealer meanwhile from being listed twice across calls, as the old per-round bound did).
  let bound = q.bound;
  const keep = (r: R) => q.keep(r) && (!bound || cmp(posOf(r), bound) < 0);
  const id = (r: R) => `${r.c.getTime()}|${r.i}`;
  // One entry per row not listed yet: a row seen in the head and in a page (a sealer moved it meanwhile) counts once.
  const found = new Map<string, PagedRow<R>>();
  const belows: { k: number; below: Pos | null }[] = [];
  let count = 0;
  let k: number | undefined; // the next page to read; undefined before the first call
  // The last page's `below`: undefined before a page is read, null once no lower page can hold a row.
  let floor: Pos | null | undefined;
  let done = false; // no page left to read
  let stop: ReaderStop | null = null; // the last call ended for the budget
  const final = (r: R) => floor === null || (floor !== undefined && cmp(posOf(r), floor) > 0);
  // Rows at or below the last page's `below` may have neighbours in unread pages: they wait for the next page.
  const finalRows = () => [...found.values()].filter((r) => final(r.row));

  async function start(): Promise<number> {
    const journal = await journalRows<R>(c, key);
    const head = (await c.heads.findOne({ _id: headId(key) })) as { e: R[]; pages: number } | null;
    q.budget?.spend(journal.length + (head?.e?.length ?? 0));
    count = head?.pages ?? 0;
    for (const row of [...journal, ...(head?.e ?? [])]) if (keep(row)) found.set(id(row), { row, page: -1 });
    if (count === 0) [done, floor] = [true, null];
    return bound && count > 0 ? await startPage(c, key, bound, count, q.hint) : count - 1;
  }

  async function next(limit: number): Promise<PagedRow<R>[]> {
    k ??= await start();
    let pagesRead = 0;
    const budgetLeft = () => pagesRead === 0 || !q.budget?.spent();
    for (; !done && finalRows().length < limit && budgetLeft(); k -= 1) {
      if (pagesRead > 0 && q.budget?.paced) {
        await q.budget.paced();
        if (q.budget.spent()) break;
      }
      const page = k >= 0 ? await readPage(c, key, k) : null;
      if (!page) {
        // Below the first page or below the lowest page retention left (forget.ts): nothing older is stored.
        done = true;
        floor = null;
        break;
      }
      pagesRead += 1;
      q.budget?.spend(page.e.length);
      for (const row of page.e as R[]) if (keep(row)) found.set(id(row), { row, page: k });
      floor = page.below ? toPos(page.below) : null;
      belows.push({ k, below: floor });
      if (floor && q.afterMs !== undefined && floor.c <= q.afterMs) floor = null; // lower pages: all too old
      if (!floor) done = true;
    }
    const listed = finalRows();
    stop = !done && listed.length < limit && floor ? { below: floor, page: k + 1 } : null;
    listed.sort((a, b) => cmp(posOf(b.row), posOf(a.row)));
    const out = listed.slice(0, limit);
    const last = out.at(-1);
    if (last) bound = posOf(last.row);
    return out.map(({ row, page }) => {
      found.delete(id(row));
      if (page >= 0) return { row, page };
      // A journal or head row: the newest page read that covers it, else the top page (a cursor then checks upwards).
      const cover = belows.find((b) => !b.below || cmp(b.below, posOf(row)) < 0);
      return { row, page: cover ? cover.k : Math.max(0, count - 1) };
    });
  }

  return { next, stopped: () => stop };
}

/**
 * The newest page that may hold rows older than `bound`: a cursor's page, moved up while the page above also
 * may (pages sealed since the cursor was issued); without a cursor, a binary search over the pages. The pages'
 * `below`s come from the key's page directory (documents.ts), not from reading whole pages.
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
