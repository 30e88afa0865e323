import type { Db } from 'mongodb';
import type { EndpointHealthDoc } from './documents.js';

/**
 * Per subscription (`_id`), the failures since its endpoint's last 2xx: what the worker needs to pause an endpoint
 * that keeps failing (activities/endpoint-health.ts). Every read and write is by `_id`.
 */
export function createHealthRepo(db: Db) {
  const health = db.collection<EndpointHealthDoc>('endpoint_health');
  return {
    collection: health,

    async find(subscriptionId: string): Promise<EndpointHealthDoc | null> {
      return await health.findOne({ _id: subscriptionId });
    },

    /**
     * `count` failed attempts, the first at `at`: counts them, and starts the failing period at `at` if none is open.
     * Answers the document.
     */
    async failed(subscriptionId: string, at: Date, count = 1): Promise<EndpointHealthDoc> {
      const counted = await health.findOneAndUpdate(
        { _id: subscriptionId },
        { $inc: { failures: count }, $setOnInsert: { failingSince: at, lastSuccessAt: null } },
        { upsert: true, returnDocument: 'after' },
      );
      if (counted?.failingSince) return counted;
      // The first failure after a 2xx: the one transition that writes twice.
      await health.updateOne(
        { _id: subscriptionId, failingSince: null },
        { $set: { failingSince: at, failures: count } },
      );
      return { _id: subscriptionId, failingSince: at, failures: count, lastSuccessAt: counted?.lastSuccessAt ?? null };
    },

    /** A 2xx: the failing period (if any) is over. */
    async succeeded(subscriptionId: string, at: Date): Promise<void> {
      await health.updateOne(
        { _id: subscriptionId },
        { $set: { failingSince: null, failures: 0, lastSuccessAt: at } },
        { upsert: true },
      );
    },
  };
}

export type HealthRepo = ReturnType<typeof createHealthRepo>;
