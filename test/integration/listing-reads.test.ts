// What a listing page reads (`pages` layout), counted through the driver's command monitoring on the real
// MongoDB-wire server: the deliveries listing reads a page's deliveries in one find by an `_id` list — not one
// findOne per row — which the launcher pushes down to the `_id` index (tools/mongo-wire/ferretdb-id-in.patch); a
// listing without a cursor that starts below the top (`createdBefore`) finds its page in the key's page directory,
// one read, instead of log2(pages) page reads. Order, filters and cursors are the listing property tests'.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { MongoClient, type CommandStartedEvent, type Db, type Document } from 'mongodb';
import { createDeliveriesRepo } from '../../src/store/deliveries-repo.js';
import type { DeliveryDoc } from '../../src/store/documents.js';
import { keyFor } from '../../src/store/listing/index.js';
import { directoryId } from '../../src/store/pages/index.js';
import { createEventsRepo } from '../../src/store/events-repo.js';
import { seedDoc } from '../helpers/events.js';
import { requireEnv, uniqueDbName } from '../helpers/env.js';

const T0 = Date.UTC(2026, 0, 1);

describe('what a listing page reads', () => {
  let client: MongoClient;
  let db: Db;
  const finds: Document[] = [];
  before(async () => {
    client = await MongoClient.connect(requireEnv('MONGODB_URL'), { monitorCommands: true });
    db = client.db(uniqueDbName('lr'));
    client.on('commandStarted', (e: CommandStartedEvent) => {
      if (e.commandName === 'find') finds.push(e.command);
    });
  });
  after(async () => {
    await db.dropDatabase();
    await client.close();
  });

  it('reads the 100 deliveries of a page with one find by _id list, in listing order', async () => {
    const repo = createDeliveriesRepo(db, 'pages', { pageRows: 16, sealAt: 8, sealEvery: 4 });
    const integratorId = randomUUID();
    const subscriptionId = randomUUID();
    const docs: DeliveryDoc[] = Array.from({ length: 250 }, (_, n) => ({
      _id: randomUUID(),
      integratorId,
      subscriptionId,
      eventId: randomUUID(),
      eventType: 'customer.created',
      status: 'succeeded',
      attemptCount: 1,
      createdAt: new Date(T0 + n),
      updatedAt: new Date(T0 + n),
      nextAttemptAt: null,
      terminalReason: null,
      lastResponseSummary: null,
    }));
    await repo.insertMany(docs);

    finds.length = 0;
    const page = await repo.list(integratorId, {}, null, 101);
    assert.deepEqual(
      page.map((d) => d._id),
      docs
        .slice(-101)
        .reverse()
        .map((d) => d._id),
    );
    const reads = finds.filter((f) => f.find === 'deliveries');
    assert.equal(reads.length, 1, `finds on deliveries: ${reads.length}`);
    const ids = (reads[0]!.filter as { _id: { $in: string[] } })._id.$in;
    assert.ok(Array.isArray(ids) && ids.length >= 101, 'the page named by one _id list');
    assert.deepEqual(reads[0]!.projection, { attempts: 0 });
  });

  it('finds where createdBefore starts in the page directory (one read), or in the pages it lacks', async () => {
    const events = createEventsRepo(db, 'pages', { pageRows: 8, sealAt: 4, sealEvery: 4 });
    const integratorId = randomUUID();
    const docs = Array.from({ length: 400 }, (_, n) => seedDoc({ integratorId, createdAt: new Date(T0 + n) }, n));
    await events.insertMany(docs);
    const before = new Date(T0 + 123);
    const want = docs
      .slice(113, 123)
      .reverse()
      .map((d) => d._id);
    const pageReads = () => finds.filter((f) => f.find === 'event_pages' && String(f.filter._id).startsWith('p|'));

    finds.length = 0;
    const page = await events.list(integratorId, { createdBefore: before }, undefined, 10);
    assert.deepEqual(
      page.map((r) => r._id),
      want,
    );
    const directoryReads = finds.filter((f) => String(f.filter._id).startsWith('d|'));
    assert.equal(directoryReads.length, 1, 'the directory read once');
    assert.ok(pageReads().length <= 3, `pages read: ${pageReads().length} (≈ 50 pages: a search would read 6 more)`);

    // A cursor's next page: whether pages were sealed above the cursor's page (here page ≈ 14 of ≈ 50) is read in
    // the directory, not by reading the page above.
    const last = page.at(-1)!;
    const cursor = { createdAt: last.createdAt, id: last._id, page: last.page };
    finds.length = 0;
    const next = await events.list(integratorId, { createdBefore: before }, cursor, 10);
    assert.deepEqual(
      next.map((r) => r._id),
      docs
        .slice(103, 113)
        .reverse()
        .map((d) => d._id),
    );
    assert.ok(last.page !== undefined && last.page < 40, `the cursor's page: ${last.page}`);
    const belowReads = pageReads().filter((f) => (f.projection as Document | undefined)?.below === 1);
    assert.deepEqual(belowReads, [], 'no page read for its below');

    // Pages written before the directory existed: the search reads them instead, same answer.
    await db.collection<{ _id: string }>('event_pages').deleteOne({ _id: directoryId(keyFor(integratorId, {})) });
    finds.length = 0;
    const again = await events.list(integratorId, { createdBefore: before }, undefined, 10);
    assert.deepEqual(
      again.map((r) => r._id),
      want,
    );
    assert.ok(pageReads().length >= 5, `pages read without the directory: ${pageReads().length}`);
  });
});
