// Several API instances and workers starting at once against one database: each runs ensureIndexes at start-up, on
// its own connection, and none may fail or leave the indexes other than declared.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { MongoClient } from 'mongodb';
import { ensureIndexes, indexes } from '../../src/store/indexes.js';
import { requireEnv, uniqueDbName } from '../helpers/env.js';
import { listedIndexes } from '../helpers/indexes.js';

const STARTING = 8;

describe('ensureIndexes, run by several processes starting at once', () => {
  const dbName = uniqueDbName('ixc');
  let clients: MongoClient[] = [];
  before(async () => {
    clients = await Promise.all(Array.from({ length: STARTING }, () => MongoClient.connect(requireEnv('MONGODB_URL'))));
  });
  after(async () => {
    await clients[0]?.db(dbName).dropDatabase();
    await Promise.all(clients.map((c) => c.close()));
  });

  it(`${STARTING} concurrent runs on an empty database: no error, every index as declared, once`, async () => {
    const results = await Promise.allSettled(clients.map((c) => ensureIndexes(c.db(dbName))));
    const failures = results.filter((r) => r.status === 'rejected').map((r) => String(r.reason));
    assert.deepEqual(failures, []);
    const skipped = new Set(results.flatMap((r) => (r.status === 'fulfilled' ? r.value.skippedTtl : [])));
    const db = clients[0]!.db(dbName);
    for (const [name, specs] of Object.entries(indexes)) {
      const listed = await listedIndexes(db, name);
      const byName = new Map(listed.map((i) => [i.name as string, i]));
      const expected = specs.filter((s) => !skipped.has(`${name}.${s.name}`));
      for (const spec of expected) {
        const found = byName.get(spec.name!);
        assert.ok(found, `${name}.${spec.name} missing`);
        assert.deepEqual(found.key, spec.key, `${name}.${spec.name} keys`);
        assert.equal(Boolean(found.unique), Boolean(spec.unique), `${name}.${spec.name} unique`);
      }
      assert.equal(listed.length, expected.length + 1, `${name}: only _id_ besides the declared ones`);
    }
  });
});
