import { MongoBulkWriteError, MongoServerError, type Db } from 'mongodb';

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
  let pending: Array<{ doc: ExpiringDoc; resolve: (first: boolean) => void; reject: (err: unknown) => void }> = [];

  function flush(): void {
    const batch = pending;
    pending = [];
    replays
      .insertMany(
        batch.map((b) => b.doc),
        { ordered: false },
      )
      .then(
        () => batch.forEach((b) => b.resolve(true)),
        (err: unknown) => {
          if (!(err instanceof MongoBulkWriteError)) return batch.forEach((b) => b.reject(err));
          const failed = new Map([err.writeErrors].flat().map((e) => [e.index, e.code]));
          batch.forEach((b, i) => {
            const code = failed.get(i);
            if (code === undefined) b.resolve(true);
            else if (code === 11000) b.resolve(false);
            else b.reject(err);
          });
        },
      );
  }

  return {
    /**
     * Records a digest; false when it is already recorded (a replay). Its `_id` is the digest, so the unique `_id`
     * decides, across every instance sharing the database. The digests of one event-loop turn go in one unordered
     * insertMany: under load a request costs a share of one round trip, not one of its own.
     */
    firstUse(digest: string, expiresAt: Date): Promise<boolean> {
      return new Promise((resolve, reject) => {
        pending.push({ doc: { _id: digest, expiresAt }, resolve, reject });
        if (pending.length === 1) setImmediate(flush);
      });
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
