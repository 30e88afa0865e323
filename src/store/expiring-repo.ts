import { MongoServerError, type Db } from 'mongodb';

/** A document that is worthless after `expiresAt`: replay digests, quota windows. */
export interface ExpiringDoc {
  _id: string;
  expiresAt: Date;
  /** Quota windows only: how many times the window was used. */
  n?: number;
}

/** Collections of ExpiringDoc, swept by `sweepExpired` (FerretDB has no TTL index; real MongoDB also has one). */
export const EXPIRING_COLLECTIONS = ['replays', 'quotas'] as const;

const isDuplicateKey = (err: unknown): boolean => err instanceof MongoServerError && err.code === 11000;

/**
 * Shared replay store and quota counters, addressed by `_id` only (the MongoDB-wire server pushes down nothing
 * else). Expiry is enforced in code: an expired document is never trusted, and `sweepExpired` deletes them off the
 * hot path.
 */
export function createExpiringRepo(db: Db) {
  const replays = db.collection<ExpiringDoc>('replays');
  const quotas = db.collection<ExpiringDoc>('quotas');

  return {
    /**
     * Records a digest; false when it is already recorded (a replay). Its `_id` is the digest, so one insert and
     * the unique `_id` decide, across every instance sharing the database.
     */
    async firstUse(digest: string, expiresAt: Date): Promise<boolean> {
      try {
        await replays.insertOne({ _id: digest, expiresAt });
        return true;
      } catch (err) {
        if (isDuplicateKey(err)) return false;
        throw err;
      }
    },

    /** Adds one use to the window `id` (created with `expiresAt`) and returns its count after this use. */
    async take(id: string, expiresAt: Date): Promise<number> {
      const update = () =>
        quotas.findOneAndUpdate(
          { _id: id },
          { $inc: { n: 1 }, $setOnInsert: { expiresAt } },
          { upsert: true, returnDocument: 'after' },
        );
      // Two first uses racing: one upsert inserts, the other may fail on the unique _id and then simply updates.
      const doc = await update().catch(async (err: unknown) => {
        if (isDuplicateKey(err)) return await update();
        throw err;
      });
      return doc?.n ?? 1;
    },

    /** Deletes expired documents of both collections; returns how many. */
    async sweepExpired(now = new Date()): Promise<number> {
      let deleted = 0;
      for (const c of [replays, quotas]) deleted += (await c.deleteMany({ expiresAt: { $lt: now } })).deletedCount;
      return deleted;
    },
  };
}

export type ExpiringRepo = ReturnType<typeof createExpiringRepo>;
