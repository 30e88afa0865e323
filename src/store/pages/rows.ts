/** What every filed row has, whatever listing it belongs to: its position (createdAt, id). A listing adds fields. */
export interface RowBase {
  c: Date;
  i: string;
}

/** A position in newest-first order: the row's (createdAt, id). */
export interface Pos {
  c: number;
  i: string;
}

export const posOf = (r: RowBase): Pos => ({ c: r.c.getTime(), i: r.i });

/** > 0 when `a` is newer than `b` (createdAt, then id): the listing shows newer first. */
export const cmp = (a: Pos, b: Pos): number => a.c - b.c || (a.i < b.i ? -1 : a.i > b.i ? 1 : 0);

/** Sorts newest first and drops repeats (a row can sit in the head and a page for a while). */
export function newestFirstUnique<R extends RowBase>(rows: readonly R[]): R[] {
  const sorted = [...rows].sort((a, b) => cmp(posOf(b), posOf(a)));
  return sorted.filter((r, n) => n === 0 || r.i !== sorted[n - 1]!.i || r.c.getTime() !== sorted[n - 1]!.c.getTime());
}
