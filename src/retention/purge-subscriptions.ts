import type { Db } from 'mongodb';
import type { EndpointHealthDoc, SigningKeyDoc, SubscriptionDoc } from '../store/documents.js';
import { deleteByIds } from '../store/by-ids.js';
import { MAX_IDS_PER_FIND } from '../store/server-limits.js';

/**
 * Subscriptions deleted before `cutoff`, with their signing keys (sealed private keys) and their endpoint health, a
 * batch at a time until none is left or `deadline`. Their deliveries were cancelled when they were deleted and leave
 * with the other deliveries that ended then. The subscription goes last: a run that stops half-way finds it again.
 */
export async function purgeSubscriptions(
  db: Db,
  cutoff: Date,
  batch: number,
  deadline: number,
): Promise<{ subscriptions: number; signingKeys: number; more: boolean }> {
  const subscriptions = db.collection<SubscriptionDoc>('subscriptions');
  const keys = db.collection<SigningKeyDoc>('signing_keys');
  const out = { subscriptions: 0, signingKeys: 0, more: false };
  const limit = Math.min(batch, MAX_IDS_PER_FIND);
  for (;;) {
    if (Date.now() >= deadline) return { ...out, more: true };
    const found = await subscriptions
      .find({ deletedAt: { $lt: cutoff } }, { projection: { _id: 1 }, limit })
      .map((s) => s._id)
      .toArray();
    if (found.length === 0) return out;
    // Every key of these subscriptions (older records list none in `keyIds`): the index on subscriptionId.
    const keyIds = await keys
      .find({ subscriptionId: { $in: found } }, { projection: { _id: 1 } })
      .map((k) => k._id)
      .toArray();
    out.signingKeys += await deleteByIds(keys, keyIds);
    await deleteByIds(db.collection<EndpointHealthDoc>('endpoint_health'), found);
    out.subscriptions += await deleteByIds(subscriptions, found, { deletedAt: { $lt: cutoff } });
    if (found.length < limit) return out;
  }
}
