import type { EventDoc } from '../documents.js';
import { isHeraldEventType, TEST_EVENT_TYPE } from '../../domain/event-types.js';
import type { EventListFilters } from '../events-query.js';

/**
 * One listing entry as the page documents hold it: what a history page returns (the stored body and createdAt)
 * plus the fields a combined filter checks. Built the same way every time, so `$addToSet` / `$pullAll` match a
 * re-written entry exactly (field order included).
 */
export interface PageRow {
  c: Date;
  i: string;
  b: string;
  t: EventDoc['eventType'];
  a: string | null;
  u: string | null;
  x: string | null;
}

/** What every filed row has, whatever listing it belongs to: its position (createdAt, id). */
export interface RowBase {
  c: Date;
  i: string;
}

/** A position in newest-first order: the row's (createdAt, id). */
export interface Pos {
  c: number;
  i: string;
}

export const toRow = (e: EventDoc): PageRow => ({
  c: e.createdAt,
  i: e._id,
  b: e.body,
  t: e.eventType,
  a: e.accountId,
  u: e.userId,
  x: e.transactionId,
});

export const posOf = (r: RowBase): Pos => ({ c: r.c.getTime(), i: r.i });

/** > 0 when `a` is newer than `b` (createdAt, then id): the listing shows newer first. */
export const cmp = (a: Pos, b: Pos): number => a.c - b.c || (a.i < b.i ? -1 : a.i > b.i ? 1 : 0);

/** Sorts newest first and drops repeats (a row can sit in the head and a page for a while). */
export function newestFirstUnique<R extends RowBase>(rows: readonly R[]): R[] {
  const sorted = [...rows].sort((a, b) => cmp(posOf(b), posOf(a)));
  return sorted.filter((r, n) => n === 0 || r.i !== sorted[n - 1]!.i || r.c.getTime() !== sorted[n - 1]!.c.getTime());
}

/**
 * The listing keys an event is filed under, one per filter dimension: its integrator's whole history, its type,
 * and each routing id it has. webhook.test events are filed only under their type: every other listing leaves
 * them out. Herald's own events (webhook.subscription_paused) are filed under none: the history lists the spec's
 * types only (they are stored, and delivered to the subscriptions naming them).
 */
export function keysOf(e: Pick<EventDoc, 'integratorId' | 'eventType' | 'accountId' | 'userId' | 'transactionId'>) {
  const k = (dim: string, value = '') => `${e.integratorId}|${dim}|${value}`;
  if (isHeraldEventType(e.eventType)) return [];
  if (e.eventType === TEST_EVENT_TYPE) return [k('type', e.eventType)];
  const keys = [k('all'), k('type', e.eventType)];
  if (e.accountId !== null) keys.push(k('account', e.accountId));
  if (e.userId !== null) keys.push(k('user', e.userId));
  if (e.transactionId !== null) keys.push(k('transaction', e.transactionId));
  return keys;
}

/**
 * The one key a query reads, by the equality filter most likely to be selective (a transaction has a few
 * events, an account or a user more, a type many); the other equality filters are checked on its rows.
 */
export function keyFor(integratorId: string, f: EventListFilters): string {
  const k = (dim: string, value = '') => `${integratorId}|${dim}|${value}`;
  if (f.eventType === TEST_EVENT_TYPE) return k('type', f.eventType);
  if (f.transactionId !== undefined) return k('transaction', f.transactionId);
  if (f.accountId !== undefined) return k('account', f.accountId);
  if (f.userId !== undefined) return k('user', f.userId);
  if (f.eventType !== undefined) return k('type', f.eventType);
  return k('all');
}

/**
 * Whether a row of the query's key passes every filter (the key's own filter holds by construction). Herald's own
 * events filed before they were left out of the listing (keysOf) are skipped here.
 */
export function matches(r: PageRow, f: EventListFilters): boolean {
  return (
    !isHeraldEventType(r.t) &&
    (f.eventType === undefined || r.t === f.eventType) &&
    (f.accountId === undefined || r.a === f.accountId) &&
    (f.userId === undefined || r.u === f.userId) &&
    (f.transactionId === undefined || r.x === f.transactionId) &&
    (f.createdAfter === undefined || r.c.getTime() > f.createdAfter.getTime()) &&
    (f.createdBefore === undefined || r.c.getTime() < f.createdBefore.getTime())
  );
}
