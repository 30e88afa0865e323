// What one document of a shared insertMany came to (src/store/insert-each.ts): a document is reported stored only when
// the server counted it. A batch the server cut short (one error named, the rest never written: a connection or server
// gone mid-way) must not answer its other documents "inserted", or the API would acknowledge events it never stored.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MongoBulkWriteError, type Collection } from 'mongodb';
import { insertEach } from '../../src/store/insert-each.js';

/** A bulk error naming `writeErrors` (index → code) with `insertedCount` inserts counted by the server. */
function bulkError(writeErrors: Record<number, number>, insertedCount: number): MongoBulkWriteError {
  const err = Object.create(MongoBulkWriteError.prototype) as MongoBulkWriteError;
  const errors = Object.entries(writeErrors).map(([index, code]) => ({ index: Number(index), code }));
  Object.defineProperty(err, 'writeErrors', { value: errors });
  Object.defineProperty(err, 'result', { value: { insertedCount, getWriteConcernError: () => undefined } });
  return err;
}

const failingWith = (err: Error) =>
  ({
    insertMany: async () => {
      throw err;
    },
  }) as unknown as Collection<{ _id: string }>;

const docs = [{ _id: 'a' }, { _id: 'b' }, { _id: 'c' }];

describe('insertEach', () => {
  it('reports the others inserted when the server counted them beside a duplicate', async () => {
    const outcomes = await insertEach(failingWith(bulkError({ 1: 11000 }, 2)), docs);
    assert.deepEqual(
      outcomes.map((o) => (o.ok ? o.value : 'error')),
      ['inserted', 'duplicate', 'inserted'],
    );
  });

  it('reports an error, never "inserted", for documents the server did not count', async () => {
    // One error named at index 0, nothing inserted: b and c were never written.
    const outcomes = await insertEach(failingWith(bulkError({ 0: 1 }, 0)), docs);
    assert.deepEqual(
      outcomes.map((o) => (o.ok ? o.value : 'error')),
      ['error', 'error', 'error'],
    );
  });

  it('keeps a duplicate an outcome even when the rest are not counted', async () => {
    const outcomes = await insertEach(failingWith(bulkError({ 0: 11000, 1: 1 }, 0)), docs);
    assert.deepEqual(
      outcomes.map((o) => (o.ok ? o.value : 'error')),
      ['duplicate', 'error', 'error'],
    );
  });
});
