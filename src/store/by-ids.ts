import type { Collection, Document, Filter, FindOptions, WithId } from 'mongodb';
import { coalesce } from './coalesce.js';
import { BACKGROUND_IDS_PER_WRITE, HOT_COMMANDS_IN_FLIGHT, MAX_IDS_PER_FIND } from './server-limits.js';

/**
 * The documents of `ids` (string `_id`s), in the order of `ids`, null where none is stored: one find per
 * MAX_IDS_PER_FIND ids, `{_id: {$in: ids}}` (a bare `_id` equality for one id), the whole answer in its first batch.
 * A listing reads its page's rows this way in one round trip instead of one per row (docs/deliveries.md).
 */
export async function findByIds<T extends Document & { _id: string }>(
  collection: Collection<T>,
  ids: readonly string[],
  options: Pick<FindOptions, 'projection'> = {},
): Promise<(WithId<T> | null)[]> {
  const unique = [...new Set(ids)];
  const found = new Map<string, WithId<T>>();
  for (let from = 0; from < unique.length; from += MAX_IDS_PER_FIND) {
    const chunk = unique.slice(from, from + MAX_IDS_PER_FIND);
    const filter = (chunk.length === 1 ? { _id: chunk[0] } : { _id: { $in: chunk } }) as Filter<T>;
    // The ids are distinct: the limit lets the server close the cursor with its first batch (no getMore).
    const docs = await collection.find(filter, { ...options, limit: chunk.length, batchSize: chunk.length }).toArray();
    for (const d of docs) found.set(d._id as string, d);
  }
  return ids.map((id) => found.get(id) ?? null);
}

/**
 * One document by `_id` (null where none is stored), concurrent calls sharing one find (group commit,
 * src/store/coalesce.ts): the hot path's reads of an event or an integrator's subscription index.
 */
export function coalescedFindById<T extends Document & { _id: string }>(
  collection: Collection<T>,
): (id: string) => Promise<WithId<T> | null> {
  return coalesce(
    async (ids: string[]) => (await findByIds(collection, ids)).map((value) => ({ ok: true as const, value })),
    { maxInFlight: HOT_COMMANDS_IN_FLIGHT, maxItems: MAX_IDS_PER_FIND },
  );
}

/**
 * Deletes `{_id: {$in}}` (plus `extra`) BACKGROUND_IDS_PER_WRITE ids at a time, each chunk its own short write (the
 * embedded server pushes it down by `_id`); answers how many were deleted. For background work beside live traffic.
 */
export async function deleteByIds<T extends Document & { _id: string }>(
  collection: Collection<T>,
  ids: readonly string[],
  extra: Filter<T> = {},
): Promise<number> {
  let deleted = 0;
  for (let n = 0; n < ids.length; n += BACKGROUND_IDS_PER_WRITE) {
    const chunk = ids.slice(n, n + BACKGROUND_IDS_PER_WRITE);
    deleted += (await collection.deleteMany({ _id: { $in: chunk }, ...extra } as Filter<T>)).deletedCount;
  }
  return deleted;
}
