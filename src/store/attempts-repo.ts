import type { Db } from 'mongodb';
import { ATTEMPTS_IN_DELIVERY } from '../domain/attempt-bounds.js';
import type { AttemptDoc, DeliveryDoc } from './documents.js';

/**
 * `attempts`: a delivery's attempts older than its latest ATTEMPTS_IN_DELIVERY (which live in the delivery's own
 * document), and the count of repeated POSTs of an attempt not yet recorded. Its `_id` is `<deliveryId>:<number>`,
 * the number zero-padded, so every read and write is by `_id` and a delivery's ids sort in number order.
 */
export interface AttemptEntryDoc {
  _id: string;
  /** The attempt once moved out of its delivery's document. */
  attempt?: AttemptDoc;
  /** POSTs made by retried activity calls that found the attempt unrecorded (activities/repeat-posts.ts). */
  repeatPosts?: number;
}

export const attemptEntryId = (deliveryId: string, attemptNumber: number): string =>
  `${deliveryId}:${String(attemptNumber).padStart(10, '0')}`;

/** A delivery's attempts kept in its document, in number order. */
export const attemptsOf = (delivery: Pick<DeliveryDoc, 'attempts'>): AttemptDoc[] =>
  Object.values(delivery.attempts ?? {}).sort((a, b) => a.attemptNumber - b.attemptNumber);

/** The attempts that recording attempt `attemptNumber` moves out of the document (those it pushes off the latest). */
export const attemptsToMove = (delivery: Pick<DeliveryDoc, 'attempts'>, attemptNumber: number): AttemptDoc[] =>
  attemptsOf(delivery).filter((a) => a.attemptNumber <= attemptNumber - ATTEMPTS_IN_DELIVERY);

export function createAttemptsRepo(db: Db) {
  const entries = db.collection<AttemptEntryDoc>('attempts');

  /** The moved attempts among these numbers (one find of ≤ 1,000 `_id`s, which the embedded server serves by `_id`). */
  async function find(deliveryId: string, attemptNumbers: readonly number[]): Promise<AttemptDoc[]> {
    if (attemptNumbers.length === 0) return [];
    const ids = attemptNumbers.map((n) => attemptEntryId(deliveryId, n));
    const found = await entries.find({ _id: { $in: ids } }).toArray();
    return found.flatMap((e) => (e.attempt ? [e.attempt] : []));
  }

  return {
    collection: entries,
    find,

    /**
     * Copies attempts out of their delivery's document, before the write that removes them there (so an attempt is
     * always in one place at least). Idempotent: a retried record copies the same attempts again.
     */
    async move(attempts: readonly AttemptDoc[]): Promise<void> {
      if (attempts.length === 0) return;
      await entries.bulkWrite(
        attempts.map((attempt) => ({
          updateOne: {
            filter: { _id: attemptEntryId(attempt.deliveryId, attempt.attemptNumber) },
            update: { $set: { attempt } },
            upsert: true,
          },
        })),
        { ordered: false },
      );
    },

    /**
     * A page of a delivery's attempts, in number order, after attempt number `after`: numbers `after + 1` to
     * `after + limit`, read from the document and (for those moved out) by their `_id`s. `nextAfter` continues it;
     * null on the last page. Numbers an attempt never used (none recorded) are skipped.
     */
    async page(
      delivery: Pick<DeliveryDoc, '_id' | 'attempts' | 'attemptCount'>,
      after: number,
      limit: number,
    ): Promise<{ attempts: AttemptDoc[]; nextAfter: number | null }> {
      const inDocument = attemptsOf(delivery);
      const last = Math.max(delivery.attemptCount, inDocument.at(-1)?.attemptNumber ?? 0);
      const end = Math.min(after + limit, last);
      const wanted = (n: number) => n > after && n <= end;
      const kept = inDocument.filter((a) => wanted(a.attemptNumber));
      const keptNumbers = new Set(kept.map((a) => a.attemptNumber));
      const missing: number[] = [];
      for (let n = after + 1; n <= end; n += 1) if (!keptNumbers.has(n)) missing.push(n);
      const moved = await find(delivery._id, missing);
      const attempts = [...kept, ...moved].sort((a, b) => a.attemptNumber - b.attemptNumber);
      return { attempts, nextAfter: end < last ? end : null };
    },

    /** Counts one more repeated POST of an unrecorded attempt (one write by `_id`); returns the count with it. */
    async countRepeatPost(deliveryId: string, attemptNumber: number): Promise<number> {
      const after = await entries.findOneAndUpdate(
        { _id: attemptEntryId(deliveryId, attemptNumber) },
        { $inc: { repeatPosts: 1 } },
        { upsert: true, returnDocument: 'after' },
      );
      return after?.repeatPosts ?? 1;
    },
  };
}

export type AttemptsRepo = ReturnType<typeof createAttemptsRepo>;
