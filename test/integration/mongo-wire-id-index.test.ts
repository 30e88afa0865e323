// The `_id` index of tools/mongo-wire (idindex.go): FerretDB's `explain` returns SQLite's plan of the query it pushes
// down for a bare `_id` filter — the read step of findOne, updateOne and deleteOne by `_id` — and, patched by the
// launcher, for an `_id` `$in`. Without the launcher's index that plan is a SCAN of the whole table; with it, a
// SEARCH on `<table>__herald_id`. (The UPDATE and DELETE
// statements FerretDB issues afterwards use the same expression; tools/mongo-wire/idindex_test.go checks their plans.)
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MongoClient, ObjectId, type Db, type Document } from 'mongodb';
import { freePort, type Managed } from '../../scripts/lib/processes.js';
import { startMongoWire } from '../../scripts/lib/servers.js';
import { requireEnv, uniqueDbName } from '../helpers/env.js';

// EXPLAIN QUERY PLAN starts no transaction, so SQLite plans it on the connection's cached schema; an ordinary
// statement checks the schema cookie first and re-plans when an index was added by another connection. So an
// ordinary read of the collection runs before each explain, and the plan shown is the one real statements get.
async function explainFind(db: Db, collection: string, filter: Document): Promise<{ pushed: boolean; plan: string }> {
  await db.collection<{ _id: string }>(collection).findOne({ _id: '__refresh__' });
  const res = await db.command({ explain: { find: collection, filter } });
  const plan = (res.queryPlanner as { Plan?: string[] }).Plan ?? [];
  return { pushed: res.filterPushdown === true, plan: plan.join('; ') };
}

async function idPlan(db: Db, collection: string, id: unknown): Promise<string> {
  const { pushed, plan } = await explainFind(db, collection, { _id: id });
  assert.equal(pushed, true, 'a bare _id filter is pushed down to SQLite');
  return plan;
}

const usesIdIndex = (plan: string): boolean => /SEARCH \S+ USING INDEX \S+__herald_id /.test(plan);

async function waitForIdIndex(db: Db, collection: string, id: unknown): Promise<string> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const plan = await idPlan(db, collection, id);
    if (usesIdIndex(plan) || Date.now() > deadline) return plan;
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('MongoDB-wire server: every _id lookup uses an index', () => {
  it('a collection created while the server runs gets the index (string and ObjectId _id)', async () => {
    const client = await MongoClient.connect(requireEnv('MONGODB_URL'));
    const db = client.db(uniqueDbName('idx'));
    try {
      const col = db.collection<{ _id: string | ObjectId; n: number }>('later');
      const oid = new ObjectId();
      await col.insertMany([
        { _id: 'a', n: 1 },
        { _id: oid, n: 2 },
        ...Array.from({ length: 50 }, (_, n) => ({ _id: `d${n}`, n })),
      ]);
      const plan = await waitForIdIndex(db, 'later', 'a');
      assert.ok(usesIdIndex(plan), plan);
      assert.ok(usesIdIndex(await idPlan(db, 'later', oid)));
      // and the operations themselves still answer right through it
      assert.equal((await col.findOne({ _id: oid }))?.n, 2);
      assert.equal((await col.updateOne({ _id: 'a' }, { $set: { n: 10 } })).modifiedCount, 1);
      assert.equal((await col.findOne({ _id: 'a' }))?.n, 10);
      assert.equal((await col.deleteOne({ _id: 'd7' })).deletedCount, 1);
      assert.equal(await col.findOne({ _id: 'd7' }), null);
      assert.equal(await col.countDocuments({}), 51);
    } finally {
      await db.dropDatabase();
      await client.close();
    }
  });

  // The launcher's patch of FerretDB (tools/mongo-wire/ferretdb-id-in.patch): `{_id: {$in: [...]}}` with at most
  // 1,000 string or ObjectId values is pushed down as `… IN (?, …)`, a SEARCH on the same index; the listings read a
  // page's rows so (src/store/by-ids.ts). Anything else in the list leaves it to FerretDB's Go filter, as before.
  it('an _id $in of strings and ObjectIds searches the index; its answer is unchanged', async () => {
    const client = await MongoClient.connect(requireEnv('MONGODB_URL'));
    const db = client.db(uniqueDbName('idin'));
    try {
      const col = db.collection<{ _id: string | ObjectId | number; n: number }>('rows');
      const oid = new ObjectId();
      await col.insertMany([
        { _id: oid, n: -1 },
        { _id: 7, n: -2 },
        ...Array.from({ length: 300 }, (_, n) => ({ _id: `r${n}`, n })),
      ]);
      await waitForIdIndex(db, 'rows', 'r0');
      const ids = ['r299', 'r5', 'missing', oid, 'r5'];
      const listed = await explainFind(db, 'rows', { _id: { $in: ids } });
      assert.equal(listed.pushed, true, listed.plan);
      assert.ok(usesIdIndex(listed.plan), listed.plan);
      assert.doesNotMatch(listed.plan, /SCAN /);
      const found = await col.find({ _id: { $in: ids } }).toArray();
      assert.deepEqual(
        found.map((d) => d.n).sort((a, b) => a - b),
        [-1, 5, 299],
      );

      const withNumber = await explainFind(db, 'rows', { _id: { $in: ['r1', 7] } });
      assert.equal(withNumber.pushed, false, 'a number in the list: left to FerretDB');
      assert.match(withNumber.plan, /SCAN /);
      const mixed = await col.find({ _id: { $in: ['r1', 7] } }).toArray();
      assert.deepEqual(
        mixed.map((d) => d.n).sort((a, b) => a - b),
        [-2, 1],
      );
    } finally {
      await db.dropDatabase();
      await client.close();
    }
  });

  describe('an existing data folder', () => {
    let dir: string;
    let server: Managed | undefined;
    before(() => {
      dir = mkdtempSync(join(tmpdir(), 'herald-idx-'));
    });
    after(async () => {
      await server?.stop();
      rmSync(dir, { recursive: true, force: true });
    });

    async function withServer<T>(args: string[], fn: (db: Db) => Promise<T>): Promise<T> {
      const port = await freePort();
      server = await startMongoWire({ port, dataDir: dir, args, log: join(dir, 'mongo-wire.log') });
      const client = await MongoClient.connect(`mongodb://127.0.0.1:${port}/`);
      try {
        return await fn(client.db('herald'));
      } finally {
        await client.close();
        await server.stop();
        server = undefined;
      }
    }

    it('scans without the index (-id-index=false), and is indexed at the next start before any query', async () => {
      const unindexed = await withServer(['-id-index=false'], async (db) => {
        await db
          .collection<{ _id: string }>('deliveries')
          .insertMany(Array.from({ length: 100 }, (_, n) => ({ _id: `x${n}` })));
        await new Promise((r) => setTimeout(r, 500)); // longer than the watcher's interval, were it running
        return await idPlan(db, 'deliveries', 'x1');
      });
      assert.match(unindexed, /SCAN /, 'FerretDB alone scans the table for an _id lookup');
      assert.ok(!usesIdIndex(unindexed), unindexed);

      const afterStart = await withServer([], async (db) => {
        const plan = await idPlan(db, 'deliveries', 'x1'); // the very first query: no waiting
        assert.equal((await db.collection<{ _id: string }>('deliveries').findOne({ _id: 'x42' }))?._id, 'x42');
        return plan;
      });
      assert.ok(usesIdIndex(afterStart), afterStart);
    });
  });
});
