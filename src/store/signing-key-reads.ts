// A subscription's signing keys, read so that no answer grows with its rotations: a subscription view shows its
// newest few, the key route pages through all of them. Subscriptions record their key ids in rotation order
// (`keyIds`), so both are reads by `_id`; a record older than `keyIds` is read by a query.
import type { Collection } from 'mongodb';
import { findByIds } from './by-ids.js';
import { after, keysetPage, newestFirst, type Position } from './cursor.js';
import type { SigningKeyDoc, SubscriptionDoc } from './documents.js';

/** Keys a subscription view shows: its newest ones; GET …/keys lists them all. */
export const VIEW_KEYS = 10;

const found = <T>(doc: T | null): doc is T => doc !== null;
const oldestFirst = (x: SigningKeyDoc, y: SigningKeyDoc) =>
  x.createdAt.getTime() - y.createdAt.getTime() || (x._id < y._id ? -1 : 1);

/** The ids of a subscription's newest `max` keys, its active key always among them. */
function newestIds(sub: SubscriptionDoc, ids: readonly string[], max: number): string[] {
  const newest = ids.slice(-max);
  return newest.includes(sub.activeKeyId) ? newest : [sub.activeKeyId, ...newest.slice(1)];
}

/**
 * The newest `max` keys of each of these subscriptions (the active one always among them), all together, oldest
 * first: one find by `_id` (records without `keyIds`: one query for all of them, capped here).
 */
export async function newestKeys(
  keys: Collection<SigningKeyDoc>,
  subs: readonly SubscriptionDoc[],
  max: number,
): Promise<SigningKeyDoc[]> {
  const ids = subs.flatMap((s) => (s.keyIds ? newestIds(s, s.keyIds, max) : []));
  const byId = (await findByIds(keys, ids)).filter(found);
  const legacy = subs.filter((s) => !s.keyIds);
  if (legacy.length === 0) return byId.sort(oldestFirst);
  const older = await keys
    .find({ integratorId: legacy[0]!.integratorId, subscriptionId: { $in: legacy.map((s) => s._id) } })
    .sort(newestFirst)
    .toArray();
  const capped = legacy.flatMap((s) => {
    const own = older.filter((k) => k.subscriptionId === s._id);
    const ids = newestIds(s, own.map((k) => k._id).reverse(), max);
    return own.filter((k) => ids.includes(k._id));
  });
  return [...byId, ...capped].sort(oldestFirst);
}

/** One page of a subscription's keys, newest first, strictly after `position` (the last key of the previous page). */
export async function keyPage(
  keys: Collection<SigningKeyDoc>,
  sub: SubscriptionDoc,
  position: Position | null,
  limit: number,
): Promise<{ page: SigningKeyDoc[]; next: Position | null }> {
  if (!sub.keyIds) {
    const own = { integratorId: sub.integratorId, subscriptionId: sub._id };
    const filter = position ? { ...own, ...after<SigningKeyDoc>(position) } : own;
    const rows = limit + 1; // the extra one tells that a next page exists
    return keysetPage(await keys.find(filter).sort(newestFirst).limit(rows).toArray(), limit);
  }
  const ids = [...sub.keyIds].reverse();
  // A position names a key of this subscription (the cursor is bound to it); ids are never removed from `keyIds`.
  const start = position ? ids.indexOf(position.id) + 1 : 0;
  const window = ids.slice(start, start + limit);
  // An id whose key was never inserted (a rotation that stopped half-way) is skipped: the page may come out shorter.
  const page = (await findByIds(keys, window)).filter(found);
  const last = window.at(-1);
  // The next page starts after the window's last id (only the id counts here; createdAt fills the cursor's shape).
  const createdAt = page.at(-1)?.createdAt ?? new Date(0);
  return { page, next: start + limit < ids.length && last !== undefined ? { createdAt, id: last } : null };
}
