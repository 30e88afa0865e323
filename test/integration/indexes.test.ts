import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { MongoClient, type Db } from 'mongodb';
import { ensureIndexes, indexes } from '../../src/store/indexes.js';
import { requireEnv, uniqueDbName } from '../helpers/env.js';

describe('ensureIndexes', () => {
  let client: MongoClient;
  let db: Db;
  before(async () => {
    client = await MongoClient.connect(requireEnv('MONGODB_URL'));
    db = client.db(uniqueDbName('ix'));
  });
  after(async () => {
    await db.dropDatabase();
    await client.close();
  });

  it('creates every declared index, and a second run (another process starting) changes nothing', async () => {
    await ensureIndexes(db);
    await ensureIndexes(db);
    for (const [name, specs] of Object.entries(indexes)) {
      const names = (await db.collection(name).listIndexes().toArray()).map((i) => i.name as string);
      for (const spec of specs) assert.ok(spec.name && names.includes(spec.name), `${name}.${spec.name}`);
      assert.equal(names.length, specs.length + 1, `${name}: only _id_ besides the declared ones`);
    }
  });

  it('names every index, so that existing ones are recognised', () => {
    for (const specs of Object.values(indexes)) for (const spec of specs) assert.ok(spec.name);
  });
});
