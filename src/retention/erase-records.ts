import type { Db } from 'mongodb';
import type { SubscriptionDoc } from '../store/documents.js';
import type { Store } from '../store/index.js';
import { MAX_IDS_PER_FIND } from '../store/server-limits.js';
import { deleteByIds } from '../store/by-ids.js';

export interface RecordCounts {
  subscriptions: number;
  signingKeys: number;
  campaigns: number;
  pageDocuments: number;
}

const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The `_id`s of `collection` whose `field` is one of `values`, a chunk of values at a time. */
async function idsWhere(db: Db, collection: string, field: string, values: readonly string[]): Promise<string[]> {
  const out: string[] = [];
  for (let n = 0; n < values.length; n += MAX_IDS_PER_FIND) {
    const chunk = values.slice(n, n + MAX_IDS_PER_FIND);
    const found = await db
      .collection<{ _id: string }>(collection)
      .find({ [field]: { $in: chunk } }, { projection: { _id: 1 } })
      .toArray();
    out.push(...found.map((d) => d._id));
  }
  return out;
}

/**
 * An erasure's last step, once its history is gone (purge-integrator.ts): every subscription of the integrator with
 * its signing keys (sealed private keys), endpoint health, attempt stats and index entry, its campaigns' progress,
 * what is left of its page documents (a scan of `event_pages` by `_id` prefix: once per erasure), then itself (its
 * request-signing keys stay, revoked: src/store/integrators-repo.ts).
 * Idempotent: each delete finds nothing the second time; the integrator goes last, so a stopped erasure is resumed.
 */
export async function eraseRecords(store: Store, integratorId: string): Promise<RecordCounts> {
  const db = store.db;
  const subscriptionIds = (
    await db
      .collection<SubscriptionDoc>('subscriptions')
      .find({ integratorId }, { projection: { _id: 1 } })
      .toArray()
  ).map((s) => s._id);
  const keyIds = await idsWhere(db, 'signing_keys', 'subscriptionId', subscriptionIds);
  const signingKeys = await deleteByIds(db.collection<{ _id: string }>('signing_keys'), keyIds);
  await deleteByIds(db.collection<{ _id: string }>('endpoint_health'), subscriptionIds);
  await store.attemptStats.eraseIntegrator(integratorId);
  await store.fifoLanes.eraseIntegrator(integratorId);
  await db.collection<{ _id: string }>('subscription_index').deleteOne({ _id: integratorId });
  const subscriptions = await deleteByIds(db.collection<{ _id: string }>('subscriptions'), subscriptionIds);
  const campaigns = (await db.collection('campaign_progress').deleteMany({ integratorId })).deletedCount;
  const prefix = { $regex: `^([hpd]\\|${escape(integratorId)}\\||j\\|${escape(integratorId)}$)` };
  const pageDocuments = (await db.collection<{ _id: string }>('event_pages').deleteMany({ _id: prefix })).deletedCount;
  await db.collection<{ _id: string }>('event_page_locks').deleteMany({ _id: prefix });
  await store.integrators.erase(integratorId);
  return { subscriptions, signingKeys, campaigns, pageDocuments };
}
