// The deliveries listing (`pages` layout) reads a page's deliveries in one find by an `_id` list — not one findOne
// per row — counted through the driver's command monitoring on the real MongoDB-wire server, where that find is
// pushed down to the `_id` index (tools/mongo-wire/ferretdb-id-in.patch). Order, filters and cursors are the listing
// property test's (deliveries-listing-property.test.ts).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { MongoClient, type CommandStartedEvent, type Db, type Document } from 'mongodb';
import { createDeliveriesRepo } from '../../src/store/deliveries-repo.js';
import type { DeliveryDoc } from '../../src/store/documents.js';
import { requireEnv, uniqueDbName } from '../helpers/env.js';

const T0 = Date.UTC(2026, 0, 1);

describe('deliveries listing: one find per page', () => {
  let client: MongoClient;
  let db: Db;
  const finds: Document[] = [];
  before(async () => {
    client = await MongoClient.connect(requireEnv('MONGODB_URL'), { monitorCommands: true });
    db = client.db(uniqueDbName('dlr'));
    client.on('commandStarted', (e: CommandStartedEvent) => {
      if (e.commandName === 'find' && e.command.find === 'deliveries') finds.push(e.command);
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
    assert.equal(finds.length, 1, `finds on deliveries: ${finds.length}`);
    const ids = (finds[0]!.filter as { _id: { $in: string[] } })._id.$in;
    assert.ok(Array.isArray(ids) && ids.length >= 101, 'the page named by one _id list');
    assert.deepEqual(finds[0]!.projection, { attempts: 0 });
  });
});
