// The retention purge's writes stay short beside live traffic (issue 44 item 2): counted through the driver's command
// monitoring on the real MongoDB-wire server, every delete and insert the purge sends names at most
// BACKGROUND_IDS_PER_WRITE documents (src/store/server-limits.ts: the embedded server writes one statement at a time
// for the whole database, and a live write waits for the whole statement). What the purge deletes is
// retention-purge.test.ts's.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { MongoClient, type CommandStartedEvent, type Db } from 'mongodb';
import { purgeExpired } from '../../src/retention/purge.js';
import { createStore } from '../../src/store/index.js';
import { BACKGROUND_IDS_PER_WRITE } from '../../src/store/server-limits.js';
import { requireEnv, uniqueDbName } from '../helpers/env.js';
import { DAY, seed } from '../helpers/retention-seed.js';

/** Documents a write names: a delete's `_id` list (or 1), an insert's documents. */
function named(e: CommandStartedEvent): number {
  if (e.commandName === 'insert') return (e.command.documents as unknown[]).length;
  const deletes = e.command.deletes as { q: { _id?: { $in?: unknown[] } } }[];
  return deletes.reduce((n, d) => n + (d.q._id?.$in?.length ?? 1), 0);
}

describe('the retention purge: short writes', () => {
  let client: MongoClient;
  let db: Db;
  const writes: { collection: string; docs: number }[] = [];
  let recording = false;
  before(async () => {
    client = await MongoClient.connect(requireEnv('MONGODB_URL'), { monitorCommands: true });
    db = client.db(uniqueDbName('pw'));
    client.on('commandStarted', (e: CommandStartedEvent) => {
      if (!recording || (e.commandName !== 'delete' && e.commandName !== 'insert')) return;
      writes.push({ collection: String(e.command[e.commandName]), docs: named(e) });
    });
  });
  after(async () => {
    await db.dropDatabase();
    await client.close();
  });

  it(`names at most ${BACKGROUND_IDS_PER_WRITE} documents per delete or insert (pages layout)`, async () => {
    const store = createStore(db, { listingLayout: 'pages', pageSizes: { pageRows: 16, sealAt: 8, sealEvery: 4 } });
    const now = Date.now();
    await seed(db, store, now, null);
    recording = true;
    const report = await purgeExpired(
      { store, now: () => new Date(now) },
      { retentionMs: DAY, batch: 200, pauseMs: 0, duty: 1, budgetMs: 120_000 },
    );
    recording = false;
    assert.ok(report.deliveries > 2 * BACKGROUND_IDS_PER_WRITE, `purged ${report.deliveries} deliveries`);
    const of = (name: string) => writes.filter((w) => w.collection === name);
    // Each kind of write the purge makes is seen, in more than one command.
    for (const name of ['deliveries', 'attempts', 'events', 'event_page_locks'])
      assert.ok(of(name).length > 1, `${name}: ${of(name).length} writes`);
    const largest = Math.max(...writes.map((w) => w.docs));
    assert.ok(largest <= BACKGROUND_IDS_PER_WRITE, `a write named ${largest} documents`);
  });
});
