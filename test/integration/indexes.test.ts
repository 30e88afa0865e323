import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { MongoClient, type Db } from 'mongodb';
import { ensureIndexes, indexes } from '../../src/store/indexes.js';
import { requireEnv, uniqueDbName } from '../helpers/env.js';
import { listedIndexes } from '../helpers/indexes.js';

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
    const { skippedTtl } = await ensureIndexes(db);
    assert.deepEqual((await ensureIndexes(db)).skippedTtl, skippedTtl);
    for (const [name, specs] of Object.entries(indexes)) {
      const listed = await listedIndexes(db, name);
      const names = listed.map((i) => i.name as string);
      // Only a TTL index may be missing, and only where the server refused it as not implemented (FerretDB).
      const expected = specs.filter((s) => !skippedTtl.includes(`${name}.${s.name}`));
      for (const spec of expected) assert.ok(spec.name && names.includes(spec.name), `${name}.${spec.name}`);
      assert.equal(names.length, expected.length + 1, `${name}: only _id_ besides the declared ones`);
    }
    for (const skipped of skippedTtl)
      assert.match(skipped, /^(replays|quotas|idempotency|portal_sessions|attempt_stats)\.expiresAt_ttl$/);
  });

  it('names every index, so that existing ones are recognised', () => {
    for (const specs of Object.values(indexes)) for (const spec of specs) assert.ok(spec.name);
  });
});
