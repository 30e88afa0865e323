import type { Db } from 'mongodb';
import { coalesce } from './coalesce.js';
import { insertEach } from './insert-each.js';
import { isDuplicateKey } from './duplicate-key.js';
import { EXPIRED_DELETES_PER_COMMAND, HOT_COMMANDS_IN_FLIGHT } from './server-limits.js';

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
export const EXPIRING_COLLECTIONS = ['replays', 'quotas', 'idempotency', 'portal_sessions', 'attempt_stats'] as const;

/** Digests per insert. */
const MAX_BATCH = 1_000;

/**
 * Shared replay store and quota counters, addressed by `_id` only (the MongoDB-wire server pushes down nothing
 * else). Expiry is enforced in code: an expired document is never trusted, and `sweepExpired` deletes them off the
 * hot path.
 */
export function createExpiringRepo(db: Db) {
  const replays = db.collection<ExpiringDoc>('replays');
  const quotas = db.collection<ExpiringDoc>('quotas');
  // Group commit (src/store/coalesce.ts): under load a batch holds every digest of one round trip (a request pays a
  // share of one insert); idle, a digest goes out on the next turn of the event loop.
  const recordDigest = coalesce((docs: ExpiringDoc[]) => insertEach(replays, docs), {
    maxInFlight: HOT_COMMANDS_IN_FLIGHT,
    maxItems: MAX_BATCH,
  });

  return {
    /**
     * Records a digest; false when it is already recorded (a replay). Its `_id` is the digest, so the unique `_id`
     * decides, across every instance sharing the database. Digests go out in unordered insertMany batches (group
     * commit, above): under load a request costs a share of one round trip, not one of its own.
     */
    async firstUse(digest: string, expiresAt: Date): Promise<boolean> {
      return (await recordDigest({ _id: digest, expiresAt })) === 'inserted';
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
