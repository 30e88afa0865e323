import { MongoBulkWriteError, type Collection, type Document, type OptionalUnlessRequiredId } from 'mongodb';
import type { ItemResult } from './coalesce.js';

/** What inserting one document came to: stored now, or one with its `_id` was stored before (E11000). */
export type InsertOutcome = 'inserted' | 'duplicate';

/**
 * Inserts each document as one `insertOne` would, in one unordered `insertMany`: the outcome of each, in order. A
 * duplicate `_id` is an outcome, not an error (also beside a write-concern error); any other refusal is that document's
 * error. A write-concern error, or fewer inserts counted than documents without an error, fails every other document:
 * its insert may not be durable (a rollback can lose it) or may not have been made; its caller answers an error, and
 * the publisher's retry is safe (idempotent on the id).
 */
export async function insertEach<T extends Document>(
  collection: Collection<T>,
  docs: readonly OptionalUnlessRequiredId<T>[],
): Promise<ItemResult<InsertOutcome>[]> {
  const inserted = { ok: true, value: 'inserted' } as const;
  const duplicate = { ok: true, value: 'duplicate' } as const;
  try {
    await collection.insertMany(docs as OptionalUnlessRequiredId<T>[], { ordered: false });
    return docs.map(() => inserted);
  } catch (err: unknown) {
    if (!(err instanceof MongoBulkWriteError)) throw err;
    const failed = new Map([err.writeErrors].flat().map((e) => [e.index, e.code]));
    // A document without an error of its own counts as stored only if the server counted as many inserts: a batch cut
    // short (its connection or server gone mid-way) may name one failure and leave the rest unwritten.
    const uncounted = err.result.insertedCount !== docs.length - failed.size;
    const unconfirmed = uncounted || err.result.getWriteConcernError() !== undefined;
    return docs.map((_, i) => {
      const code = failed.get(i);
      if (code === 11000) return duplicate;
      return code === undefined && !unconfirmed ? inserted : { ok: false, error: err };
    });
  }
}
