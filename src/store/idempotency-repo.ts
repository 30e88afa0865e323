import type { Db } from 'mongodb';
import { isDuplicateKey } from './duplicate-key.js';

/**
 * One integrator's use of an Idempotency-Key (src/api/plugins/app/idempotency.ts): the request it was first given
 * with (a fingerprint of method, target and body) and, once answered, the answer. Addressed by `_id` only, a digest
 * of the integrator and the key; swept after `expiresAt` with the other expiring collections.
 */
export interface IdempotencyDoc {
  _id: string;
  fingerprint: string;
  /** Until then a request holding the key is taken to be running; after it, a crashed one, whose key another takes. */
  lockedUntil: Date;
  expiresAt: Date;
  /** The answer, once there is one to keep. */
  answer?: KeptAnswer;
}

export interface KeptAnswer {
  readonly status: number;
  /** The body as sent (JSON text; empty when there was none). */
  readonly body: string;
  readonly location: string | null;
}

/** What a request with a key finds. */
export type KeyUse =
  | { readonly kind: 'first' }
  | { readonly kind: 'replay'; readonly answer: KeptAnswer }
  | { readonly kind: 'other_request' }
  | { readonly kind: 'running' };

export function createIdempotencyRepo(db: Db) {
  const keys = db.collection<IdempotencyDoc>('idempotency');
  return {
    keys,
    /**
     * Takes the key for this request, or says who has it. The unique `_id` decides between racing requests, across
     * every instance sharing the database: one inserts, the others read what it wrote.
     */
    async begin(
      id: string,
      fingerprint: string,
      now: Date,
      { lockMs, keepMs }: { lockMs: number; keepMs: number },
    ): Promise<KeyUse> {
      const lockedUntil = new Date(now.getTime() + lockMs);
      const expiresAt = new Date(now.getTime() + keepMs);
      for (;;) {
        const inserted = await keys.insertOne({ _id: id, fingerprint, lockedUntil, expiresAt }).then(
          () => true,
          (err: unknown) => {
            if (isDuplicateKey(err)) return false;
            throw err;
          },
        );
        if (inserted) return { kind: 'first' };
        const found = await keys.findOne({ _id: id });
        if (!found) continue; // swept or abandoned in between: take it
        if (found.expiresAt <= now) {
          await keys.deleteOne({ _id: id });
          continue;
        }
        if (found.fingerprint !== fingerprint) return { kind: 'other_request' };
        if (found.answer) return { kind: 'replay', answer: found.answer };
        if (found.lockedUntil > now) return { kind: 'running' };
        // The request that held it stopped answering (its instance died): this one goes on in its place. Whatever
        // that one created carries ids derived from the key, so going on again cannot make a second of anything.
        await keys.updateOne({ _id: id }, { $set: { lockedUntil } });
        return { kind: 'first' };
      }
    },

    /** Keeps the answer for the rest of the key's life. */
    async keep(id: string, answer: KeptAnswer): Promise<void> {
      await keys.updateOne({ _id: id }, { $set: { answer } });
    },

    /** Frees the key: the request may be made again with it (an answer not worth keeping, e.g. a 5xx). */
    async release(id: string): Promise<void> {
      await keys.deleteOne({ _id: id });
    },
  };
}

export type IdempotencyRepo = ReturnType<typeof createIdempotencyRepo>;
