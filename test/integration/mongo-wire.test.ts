// Proof that the MongoDB-wire server is real: the official driver, compound + unique indexes, a two-key sort and a
// range filter, and a duplicate-key error (11000) — none of which a mock would give.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { MongoClient, MongoServerError, type Collection } from 'mongodb';
import { requireEnv, uniqueDbName } from '../helpers/env.js';

interface Doc {
  tenant: string;
  createdAt: Date;
  seq: number;
  key: string;
}

describe('MongoDB-wire server (real)', () => {
  let client: MongoClient;
  let col: Collection<Doc>;

  before(async () => {
    client = await MongoClient.connect(requireEnv('MONGODB_URL'));
    col = client.db(uniqueDbName('wire')).collection<Doc>('docs');
    await col.createIndex({ tenant: 1, createdAt: -1, seq: -1 });
    await col.createIndex({ key: 1 }, { unique: true });
  });
  after(async () => {
    await client.db(col.dbName).dropDatabase();
    await client.close();
  });

  it('inserts, then reads back with a compound sort and a range filter', async () => {
    const base = Date.UTC(2026, 0, 1);
    const docs: Doc[] = Array.from({ length: 20 }, (_, i) => ({
      tenant: i % 2 === 0 ? 'a' : 'b',
      createdAt: new Date(base + Math.floor(i / 4) * 1000),
      seq: i,
      key: `k${i}`,
    }));
    await col.insertMany(docs.map((d) => ({ ...d })));
    const got = await col
      .find({ tenant: 'a', createdAt: { $gt: new Date(base), $lt: new Date(base + 4000) } }, { projection: { _id: 0 } })
      .sort({ createdAt: -1, seq: -1 })
      .toArray();
    const expected = docs
      .filter((d) => d.tenant === 'a' && d.createdAt.getTime() > base && d.createdAt.getTime() < base + 4000)
      .sort((x, y) => y.createdAt.getTime() - x.createdAt.getTime() || y.seq - x.seq)
      .map(({ tenant, createdAt, seq, key }) => ({ tenant, createdAt, seq, key }));
    assert.ok(expected.length >= 4);
    assert.deepEqual(got, expected);
    const indexes = await col.listIndexes().toArray();
    assert.ok(indexes.some((i) => i.name === 'tenant_1_createdAt_-1_seq_-1'));
    assert.ok(indexes.some((i) => i.name === 'key_1' && i.unique === true));
  });

  it('rejects a duplicate on a unique index with code 11000', async () => {
    await col.insertOne({ tenant: 'c', createdAt: new Date(), seq: 1, key: 'dup' });
    await assert.rejects(
      col.insertOne({ tenant: 'c', createdAt: new Date(), seq: 2, key: 'dup' }),
      (err: unknown) => err instanceof MongoServerError && err.code === 11000,
    );
    assert.equal(await col.countDocuments({ key: 'dup' }), 1);
  });
  it('applies concurrent updates of one document atomically: none is lost (the launcher serializes them)', async () => {
    // FerretDB's SQLite backend reads, then writes, outside one transaction: without tools/mongo-wire/serialize.go,
    // 200 concurrent $addToSet kept 44. A pool of 50 connections makes them truly concurrent on the server.
    const pooled = await MongoClient.connect(requireEnv('MONGODB_URL'), { maxPoolSize: 50 });
    try {
      const heads = pooled.db(col.dbName).collection<{ _id: string; e?: number[]; n?: number }>('heads');
      await Promise.all(
        Array.from({ length: 200 }, (_, i) =>
          heads.updateOne({ _id: 'set' }, { $addToSet: { e: { $each: [i] } } }, { upsert: true }).catch(async () => {
            // two first upserts race on the unique _id; the loser simply updates
            await heads.updateOne({ _id: 'set' }, { $addToSet: { e: { $each: [i] } } });
          }),
        ),
      );
      assert.equal((await heads.findOne({ _id: 'set' }))?.e?.length, 200);
      await heads.insertOne({ _id: 'count', n: 0 });
      const befores = await Promise.all(
        Array.from({ length: 100 }, () =>
          heads.findOneAndUpdate({ _id: 'count' }, { $inc: { n: 1 } }, { returnDocument: 'before' }),
        ),
      );
      assert.equal((await heads.findOne({ _id: 'count' }))?.n, 100);
      assert.equal(new Set(befores.map((d) => d?.n)).size, 100, 'each findAndModify saw its own value');
    } finally {
      await pooled.close();
    }
  });
});
