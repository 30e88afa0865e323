import type { EventDoc } from '../documents.js';
import { isHeraldEventType, TEST_EVENT_TYPE } from '../../domain/event-types.js';
import type { RowBase } from '../pages/index.js';
import type { EventListFilters } from './listing.js';

/**
 * One events listing entry as the page documents hold it: what a history page returns (the stored body and
 * createdAt) plus the fields a combined filter checks. Built the same way every time, so `$addToSet` / `$pullAll`
 * match a re-written entry exactly (field order included).
 */
export interface EventRow extends RowBase {
  b: string;
  t: EventDoc['eventType'];
  a: string | null;
  u: string | null;
  x: string | null;
}

export const toRow = (e: EventDoc): EventRow => ({
  c: e.createdAt,
  i: e._id,
  b: e.body,
  t: e.eventType,
  a: e.accountId,
  u: e.userId,
  x: e.transactionId,
});

/** The dimension of Herald's own events: read by retention only. */
const HERALD_DIMENSION = 'herald';

/** The keys retention walks for an integrator's events, oldest first: together they name every stored event. */
export const eventWalkKeys = (integratorId: string): string[] =>
  ['all|', `type|${TEST_EVENT_TYPE}`, `${HERALD_DIMENSION}|`].map((s) => `${integratorId}|${s}`);

/** The keys of a stored row (retention removes it from each): the same as its event's. */
export const keysOfRow = (integratorId: string, r: EventRow): string[] =>
  keysOf({ integratorId, eventType: r.t, accountId: r.a, userId: r.u, transactionId: r.x });

/**
 * The listing keys an event is filed under, one per filter dimension: its integrator's whole history, its type,
 * and each routing id it has. webhook.test events are filed only under their type: every other listing leaves
 * them out. Herald's own events (webhook.subscription_paused) are filed only under a key no listing reads (the history
 * lists the spec's types only), which retention walks to find them (src/store/listing/retention.ts).
 */
export function keysOf(e: Pick<EventDoc, 'integratorId' | 'eventType' | 'accountId' | 'userId' | 'transactionId'>) {
  const k = (dim: string, value = '') => `${e.integratorId}|${dim}|${value}`;
  if (isHeraldEventType(e.eventType)) return [k(HERALD_DIMENSION)];
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
export function matches(r: EventRow, f: EventListFilters): boolean {
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
