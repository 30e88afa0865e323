// The integrator's journal under concurrency (docs/events.md, "Page documents"): many events of one integrator
// ingested at once, with tiny journals, heads and pages so that moves and seals run concurrently with the writes
// and with each other, on the real MongoDB-wire server (updates serialized per collection, inserts not). Every
// event is listed exactly once under each of its keys, and one event's listing write is one journal update.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { CommandStartedEvent } from 'mongodb';
import { journalId, moveJournal } from '../../src/store/pages/index.js';
import { createEventsRepo, type EventsRepo } from '../../src/store/events-repo.js';
import type { EventDoc } from '../../src/store/documents.js';
import { createMongo } from '../../src/store/mongo.js';
import { seedDoc } from '../helpers/events.js';
import { testConfig } from '../helpers/env.js';

const T0 = Date.UTC(2026, 2, 1);
const accounts = [randomUUID(), randomUUID(), randomUUID()];

describe('event listing journal: concurrent writers, movers and sealers', () => {
  const mongo = createMongo(testConfig(), { monitorCommands: true });
  let repo: EventsRepo;
  const integratorId = randomUUID();
  const commands: CommandStartedEvent[] = [];

  before(async () => {
    await mongo.client.connect();
    mongo.client.on('commandStarted', (e) => commands.push(e));
    repo = createEventsRepo(mongo.db, 'pages', {
      pageRows: 6,
      sealAt: 3,
      sealEvery: 2,
      journalAt: 4,
      journalEvery: 2,
    });
  });
  after(async () => {
    await mongo.db.dropDatabase();
    await mongo.client.close();
  });

  const ids = (rows: readonly { _id: string }[]) => rows.map((r) => r._id);
  const newestFirst = (docs: readonly EventDoc[]) =>
    [...docs].sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || (a._id < b._id ? 1 : -1));

  it('lists every event exactly once under each key after 240 concurrent ingests', async () => {
    const docs = Array.from({ length: 240 }, (_, n) =>
      seedDoc(
        {
          integratorId,
          createdAt: new Date(T0 + Math.floor(n / 3) * 1000),
          accountId: accounts[n % 3]!,
          eventType: n % 2 === 0 ? 'customer.created' : 'transaction.completed',
        },
        n,
      ),
    );
    let next = 0;
    const lane = async () => {
      while (next < docs.length) await repo.insertOnce(docs[next++]!);
    };
    await Promise.all(Array.from({ length: 24 }, lane));
    const all = await repo.list(integratorId, {}, undefined, 1000);
    assert.deepEqual(ids(all), ids(newestFirst(docs)), 'the whole history, once each, in order');
    for (const accountId of accounts) {
      const listed = await repo.list(integratorId, { accountId }, undefined, 1000);
      assert.deepEqual(ids(listed), ids(newestFirst(docs.filter((d) => d.accountId === accountId))));
    }
    const typed = await repo.list(integratorId, { eventType: 'customer.created' }, undefined, 1000);
    assert.deepEqual(ids(typed), ids(newestFirst(docs.filter((d) => d.eventType === 'customer.created'))));
    // The journal moved along the way (it is not where the history lives), and moving what is left empties it.
    const sealed = await repo.pages.pages.countDocuments({ _id: { $regex: new RegExp(`^p\\|${integratorId}\\|all`) } });
    assert.ok(sealed >= 30, `the history went into sealed pages (${sealed})`);
    assert.ok(await moveJournal(repo.pages, integratorId));
    assert.deepEqual((await repo.pages.journals.findOne({ _id: journalId(integratorId) }))?.e, []);
    assert.deepEqual(ids(await repo.list(integratorId, {}, undefined, 1000)), ids(newestFirst(docs)));
  });

  it("files one event with one update of its integrator's journal, whatever its keys", async () => {
    const repoLarge = createEventsRepo(mongo.db, 'pages'); // default sizes: no move is due after one event
    const other = randomUUID();
    commands.length = 0;
    await repoLarge.insertOnce(
      seedDoc({ integratorId: other, createdAt: new Date(T0), accountId: accounts[0]!, userId: randomUUID() }, 1),
      undefined,
      [randomUUID(), randomUUID()],
    );
    const writes = commands.filter((c) => c.commandName === 'update' && c.command.update === 'event_pages');
    assert.equal(writes.length, 1);
    const updates = writes[0]!.command.updates as { q: { _id: string } }[];
    assert.deepEqual(
      updates.map((u) => u.q),
      [{ _id: journalId(other) }],
    );
  });
});
