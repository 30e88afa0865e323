// The indexes layout's rounds (src/store/listing/index-rounds.ts) when a query runs out of its time: a page goes on
// after the last row a finished round read, and a page whose first query ran out answers ListingTimeout (the API's
// 503), never a cursor that does not move. The server's side (MaxTimeMSExpired) is played by a fake collection.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MongoServerError, type Collection } from 'mongodb';
import { ListingTimeout, readInRounds } from '../../src/store/listing/index.js';

interface Row {
  _id: string;
  createdAt: Date;
  ok: boolean;
}
const rows: Row[] = Array.from({ length: 50 }, (_, k) => ({
  _id: `r${String(49 - k).padStart(2, '0')}`,
  createdAt: new Date(Date.UTC(2026, 0, 1) + (49 - k) * 1000),
  ok: k % 10 === 9,
}));
const expired = () => new MongoServerError({ code: 50, errmsg: 'operation exceeded time limit' });

/** Answers newest-first rows after the filter's position; throws MaxTimeMSExpired from call `failFrom` on. */
function fakeCollection(failFrom: number): { collection: Collection<Row>; calls: () => number } {
  let calls = 0;
  const find = (filter: { $and?: [unknown, { $or: [{ createdAt: { $lt: Date } }] }] }, options: { limit: number }) => ({
    toArray: async () => {
      calls += 1;
      if (calls >= failFrom) throw expired();
      const before = filter.$and?.[1].$or[0].createdAt.$lt;
      return rows.filter((r) => !before || r.createdAt < before).slice(0, options.limit);
    },
  });
  return { collection: { find } as unknown as Collection<Row>, calls: () => calls };
}
const query = {
  integratorId: 'acme',
  anchor: {},
  keep: (r: Row) => r.ok,
  limit: 3,
  projection: {},
  bounds: { scanRows: 1e6, timeMs: 60_000 },
};

describe('a listing round out of time', () => {
  it('answers what the finished rounds found, going on after the last row they read', async () => {
    const { collection } = fakeCollection(2); // the first round (3 rows) ends; the second runs out
    const page = await readInRounds(collection, { ...query, position: null });
    assert.deepEqual(page.resumeAt, { createdAt: rows[2]!.createdAt, id: rows[2]!._id });
    assert.equal(page.length, 0);
  });

  it('answers ListingTimeout when the first query of a page runs out: nowhere to go on from', async () => {
    const { collection } = fakeCollection(1);
    await assert.rejects(readInRounds(collection, { ...query, position: null }), ListingTimeout);
    const from = { createdAt: rows[10]!.createdAt, id: rows[10]!._id };
    await assert.rejects(readInRounds(collection, { ...query, position: from }), ListingTimeout);
  });

  it('reads every row in rounds when there is time, and stops at limit', async () => {
    const { collection, calls } = fakeCollection(Infinity);
    const page = await readInRounds(collection, { ...query, position: null });
    assert.deepEqual(
      page.map((r) => r._id),
      rows
        .filter((r) => r.ok)
        .map((r) => r._id)
        .slice(0, 3),
    );
    assert.equal(page.resumeAt, undefined);
    assert.ok(calls() > 1, 'the filter checked in code made it read more than one round');
  });
});
