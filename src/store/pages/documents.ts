import type { Collection, Db } from 'mongodb';
import { cmp, type Pos, type RowBase } from './rows.js';

/**
 * `event_pages` holds, per integrator, a journal, and per listing key three kinds of documents (see docs/events.md,
 * "Page documents"); a row is any listing's (an event's, a delivery's: src/store/listing), with its position:
 * - the journal `j|<integrator>`: the newest rows of all its keys, each with the keys it is filed under;
 * - the head `h|<key>`: rows moved out of the journal, not yet sealed, and how many sealed pages the key has;
 * - sealed page `p|<key>|<n>`: n = 0 is the oldest. Pages tile the order: every row of page n is newer than
 *   `below` (the newest row of page n − 1 when page n was opened) and at most `hi`;
 * - the page directory `d|<key>`: each sealed page's `below` (fixed when it opens), so that finding the page of a
 *   position reads one small document instead of log2(pages) pages of rows.
 */
export interface HeadDoc {
  _id: string;
  e: RowBase[];
  pages: number;
  /** The lowest sealed page left: pages below it were emptied by retention and deleted (pages/forget.ts); absent = 0. */
  base?: number;
}

/** A journal entry: one row and the keys it is filed under (without the integrator prefix), in filing order. */
export interface JournalEntry {
  k: string[];
  r: RowBase;
}

export interface JournalDoc {
  _id: string;
  e: JournalEntry[];
}

/** A position as stored (createdAt as a BSON date). */
export interface StoredPos {
  c: Date;
  i: string;
}

export interface PageDoc {
  _id: string;
  e: RowBase[];
  below: StoredPos | null;
  hi: StoredPos;
}

/** A key's page directory: `b[n]` is sealed page n's `below` (n ≥ 1), written with the page that opens. */
export interface DirectoryDoc {
  _id: string;
  b: Record<string, StoredPos | null>;
}

/** Sealing lease per key: a tiny collection of its own, so its conditional delete scans almost nothing. */
export interface LockDoc {
  _id: string;
  at: Date;
}

export const headId = (key: string): string => `h|${key}`;
export const journalId = (integratorId: string): string => `j|${integratorId}`;
/** A listing key is `<integrator>|<dimension>|<value>`: its integrator, and the rest as a journal entry names it. */
export const integratorOf = (key: string): string => key.slice(0, key.indexOf('|'));
export const suffixOf = (key: string): string => key.slice(key.indexOf('|') + 1);
export const pageId = (key: string, n: number): string => `p|${key}|${n}`;
export const directoryId = (key: string): string => `d|${key}`;
export const toPos = (p: StoredPos): Pos => ({ c: p.c.getTime(), i: p.i });
export const stored = (p: Pos): StoredPos => ({ c: new Date(p.c), i: p.i });

/**
 * `pageRows`: rows per sealed page (a page may hold a few more after late rows were filed into it). `sealAt`: a
 * head is sealed once it holds this many rows. `sealEvery`: a move into a head checks it after about this many of
 * its rows, so heads stay near sealAt..sealAt + sealEvery rows. `journalAt` / `journalEvery`: the same for an
 * integrator's journal, in entries (a write checks the journal after about `journalEvery` of its entries, and moves
 * its entries into their keys' heads once it holds `journalAt`). Tests use small sizes to reach many pages with
 * little data. Why these sizes: docs/events.md, "Page documents" (FerretDB rewrites a whole document per update).
 */
export interface PageSizes {
  pageRows: number;
  sealAt: number;
  sealEvery: number;
  journalAt: number;
  journalEvery: number;
}

export const defaultPageSizes: PageSizes = { pageRows: 128, sealAt: 32, sealEvery: 16, journalAt: 16, journalEvery: 4 };

export interface PageCollections {
  sizes: PageSizes;
  pages: Collection<HeadDoc | PageDoc>;
  heads: Collection<HeadDoc>;
  journals: Collection<JournalDoc>;
  sealed: Collection<PageDoc>;
  directories: Collection<DirectoryDoc>;
  locks: Collection<LockDoc>;
}

export function pageCollections(db: Db, sizes: Partial<PageSizes> = defaultPageSizes): PageCollections {
  const pages = db.collection<HeadDoc | PageDoc>('event_pages');
  return {
    // Small test sizes without journal sizes get a journal as small as their heads.
    sizes: {
      ...defaultPageSizes,
      journalAt: sizes.sealAt ?? defaultPageSizes.journalAt,
      journalEvery: sizes.sealEvery ?? defaultPageSizes.journalEvery,
      ...sizes,
    },
    pages,
    heads: pages as unknown as Collection<HeadDoc>,
    journals: pages as unknown as Collection<JournalDoc>,
    sealed: pages as unknown as Collection<PageDoc>,
    directories: pages as unknown as Collection<DirectoryDoc>,
    locks: db.collection<LockDoc>('event_page_locks'),
  };
}

/** The sealed page n of `key`, or null. */
export async function readPage(c: PageCollections, key: string, n: number): Promise<PageDoc | null> {
  return await c.sealed.findOne({ _id: pageId(key, n) });
}

/**
 * The newest sealed page that may hold rows older than `bound`: the largest n < count with below < bound (page 0
 * always qualifies). Binary search over the key's page directory (one read, belowReader); a page the directory
 * lacks (written before it existed) is read itself.
 */
export async function locate(
  c: PageCollections,
  key: string,
  bound: Pos,
  count: number,
  belowOf = belowReader(c, key),
): Promise<number> {
  const qualifies = async (n: number): Promise<boolean> => {
    if (n === 0) return true;
    const below = await belowOf(n);
    return !below || cmp(toPos(below), bound) < 0;
  };
  let lo = 0;
  let hi = count - 1;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (await qualifies(mid)) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/**
 * Reads sealed pages' `below` (null: page 0, or no such page): from the key's directory, read once on first use, else
 * from the page itself (a page the directory lacks).
 */
export function belowReader(c: PageCollections, key: string): (n: number) => Promise<StoredPos | null> {
  let directory: Promise<DirectoryDoc['b']> | undefined;
  return async (n) => {
    directory ??= c.directories.findOne({ _id: directoryId(key) }).then((d) => d?.b ?? {});
    const listed = await directory;
    if (String(n) in listed) return listed[String(n)] ?? null;
    return (await c.sealed.findOne({ _id: pageId(key, n) }, { projection: { below: 1 } }))?.below ?? null;
  };
}
