import { MongoBulkWriteError, type Db } from 'mongodb';
import { isDuplicateKey } from './duplicate-key.js';
import { EXPIRED_DELETES_PER_COMMAND } from './server-limits.js';

/** A document that is worthless after `expiresAt`: replay digests, quota windows, marks. */
export interface ExpiringDoc {
  _id: string;
  expiresAt: Date;
  /** Quota windows only: how many times the window was used. */
  n?: number;
  /** Marks only: who set the mark (a campaign re-delivery's: its campaign). */
  holder?: string;
}

/** Collections of ExpiringDoc, swept by `sweepExpired` (FerretDB has no TTL index; real MongoDB also has one). */
export const EXPIRING_COLLECTIONS = ['replays', 'quotas', 'idempotency'] as const;

/** Replay inserts in flight at once, and digests per insert. */
const MAX_IN_FLIGHT = 2;
const MAX_BATCH = 1_000;

/**
 * Shared replay store and quota counters, addressed by `_id` only (the MongoDB-wire server pushes down nothing
 * else). Expiry is enforced in code: an expired document is never trusted, and `sweepExpired` deletes them off the
 * hot path.
 */
export function createExpiringRepo(db: Db) {
  const replays = db.collection<ExpiringDoc>('replays');
  const quotas = db.collection<ExpiringDoc>('quotas');
  // Group commit: at most MAX_IN_FLIGHT inserts at once; digests that arrive meanwhile wait for the next one. Under
  // load a batch holds every digest of one round trip (a request pays a share of one insert); idle, a digest goes
  // out on the next event-loop turn, with no added delay.
  const pending: Array<{ doc: ExpiringDoc; resolve: (first: boolean) => void; reject: (err: unknown) => void }> = [];
  let inFlight = 0;

  async function write(batch: typeof pending): Promise<void> {
    try {
      await replays.insertMany(
        batch.map((b) => b.doc),
        { ordered: false },
      );
      batch.forEach((b) => b.resolve(true));
    } catch (err: unknown) {
      if (!(err instanceof MongoBulkWriteError)) return batch.forEach((b) => b.reject(err));
      const failed = new Map([err.writeErrors].flat().map((e) => [e.index, e.code]));
      // A write-concern error comes without write errors: the inserts were applied but not acknowledged as durable
      // (a rollback can lose them), so no digest of the batch counts as recorded. A duplicate key is still a replay.
      const unconfirmed = err.result.getWriteConcernError() !== undefined;
      batch.forEach((b, i) => {
        const code = failed.get(i);
        if (code === 11000) b.resolve(false);
        else if (code === undefined && !unconfirmed) b.resolve(true);
        else b.reject(err);
      });
    }
  }

  function pump(): void {
    while (inFlight < MAX_IN_FLIGHT && pending.length > 0) {
      const batch = pending.splice(0, MAX_BATCH);
      inFlight++;
      void write(batch).finally(() => {
        inFlight--;
        pump();
      });
    }
  }

  return {
    /**
     * Records a digest; false when it is already recorded (a replay). Its `_id` is the digest, so the unique `_id`
     * decides, across every instance sharing the database. Digests go out in unordered insertMany batches (group
     * commit, above): under load a request costs a share of one round trip, not one of its own.
     */
    firstUse(digest: string, expiresAt: Date): Promise<boolean> {
      return new Promise((resolve, reject) => {
        pending.push({ doc: { _id: digest, expiresAt }, resolve, reject });
        if (pending.length === 1) setImmediate(pump);
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

    /** Who holds the mark `id` (in the quotas collection), or null when none is set or it has expired. */
    async holderOf(id: string, now = new Date()): Promise<string | null> {
      const doc = await quotas.findOne({ _id: id });
      return doc && doc.expiresAt > now ? (doc.holder ?? null) : null;
    },

    /** Sets the mark `id` for `holder` until `expiresAt` (one upsert by `_id`; the last writer wins). */
    async mark(id: string, holder: string, expiresAt: Date): Promise<void> {
      await quotas.updateOne({ _id: id }, { $set: { holder, expiresAt } }, { upsert: true }).catch(async (err) => {
        if (!isDuplicateKey(err)) throw err;
        await quotas.updateOne({ _id: id }, { $set: { holder, expiresAt } });
      });
    },

    /**
     * Deletes expired documents of the expiring collections, `chunk` at a time; returns how many. Chunked by `_id`: the
     * MongoDB-wire server deletes a filter's matches in one SQL statement with one variable each, and fails past
     * SQLite's limit (32,766) — a backlog of expired digests would otherwise never be swept.
     */
    async sweepExpired(now = new Date(), chunk = EXPIRED_DELETES_PER_COMMAND): Promise<number> {
      let deleted = 0;
      for (const name of EXPIRING_COLLECTIONS) {
        const c = db.collection<Pick<ExpiringDoc, '_id' | 'expiresAt'>>(name);
        for (;;) {
          const expired = await c
            .find({ expiresAt: { $lt: now } }, { projection: { _id: 1 }, limit: chunk })
            .map((d) => d._id)
            .toArray();
          if (expired.length === 0) break;
          deleted += (await c.deleteMany({ _id: { $in: expired } })).deletedCount;
          if (expired.length < chunk) break;
        }
      }
      return deleted;
    },
  };
}

export type ExpiringRepo = ReturnType<typeof createExpiringRepo>;
