// Property: every filter combination and every cursor walk of the event history equals a plain reference query
// (all of the integrator's events, filtered and sorted in memory), for both listing layouts, on the real
// MongoDB-wire server, over data that went through every write path: bulk filing, one-by-one ingestion through the
// integrator's journal with moves and sealing, late (out-of-order) rows, re-writes of sealed rows, a sealer and a
// journal mover that died half-way, and dead leases.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import type { FastifyInstance } from 'fastify';
import { TEST_EVENT_TYPE, type SpecHistoryEventType } from '../../src/domain/event-types.js';
import { keysetPage, type Position } from '../../src/store/cursor.js';
import type { EventDoc } from '../../src/store/documents.js';
import { createEventsRepo, type EventsRepo } from '../../src/store/events-repo.js';
import { keyFor, keysOf, toRow, type EventListFilters } from '../../src/store/listing/index.js';
import {
  addToHead,
  fileIntoPages,
  headId,
  journalId,
  moveJournal,
  seal,
  writeUpserts,
} from '../../src/store/pages/index.js';
import { buildTestApp, closeTestApp } from '../helpers/app.js';
import { seedDoc } from '../helpers/events.js';
import { listen, registerIntegrator, type TestIntegrator } from '../helpers/integrators.js';

const T0 = Date.UTC(2026, 0, 1);
const SPAN = 300; // createdAt = T0 + 0..SPAN-1 seconds: many ties, every date bound lands among events
const accounts = [randomUUID(), randomUUID(), randomUUID()];
const users = [randomUUID(), randomUUID(), randomUUID()];
const txns = [randomUUID(), randomUUID()];
const types: SpecHistoryEventType[] = [
  'transaction.completed',
  'customer.created',
  'customer.updated',
  TEST_EVENT_TYPE,
];

/** The plain reference: the spec's semantics written out over every stored event. */
function reference(all: readonly EventDoc[], integratorId: string, f: EventListFilters): string[] {
  return all
    .filter(
      (e) =>
        e.integratorId === integratorId &&
        (f.eventType === undefined ? e.eventType !== TEST_EVENT_TYPE : e.eventType === f.eventType) &&
        (f.accountId === undefined || e.accountId === f.accountId) &&
        (f.userId === undefined || e.userId === f.userId) &&
        (f.transactionId === undefined || e.transactionId === f.transactionId) &&
        (f.createdAfter === undefined || e.createdAt > f.createdAfter) &&
        (f.createdBefore === undefined || e.createdAt < f.createdBefore),
    )
    .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || (a._id < b._id ? 1 : -1))
    .map((e) => e._id);
}

const pick = <T>(xs: readonly T[]) => fc.option(fc.constantFrom(...xs), { nil: undefined });
const at = fc.option(
  fc.integer({ min: -5, max: SPAN + 5 }).map((s) => new Date(T0 + s * 1000)),
  { nil: undefined },
);
const filtersArb = fc.record({
  accountId: pick(accounts),
  userId: pick(users),
  transactionId: pick(txns),
  eventType: pick(types),
  createdAfter: at,
  createdBefore: at,
});
const limitArb = fc.oneof(fc.integer({ min: 1, max: 9 }), fc.constantFrom(31, 100, 129, 250));
const MAX_PAGES = 25;

describe('event listing property: every filter and cursor against a reference query', () => {
  let app: FastifyInstance;
  let acme: TestIntegrator;
  let rival: TestIntegrator;
  let all: EventDoc[];
  let repos: Record<'pages' | 'indexes', EventsRepo>;
  let doc: (createdAtSec: number) => EventDoc;
  let future = SPAN + 10;

  before(async () => {
    ({ app } = await buildTestApp());
    const url = await listen(app);
    acme = await registerIntegrator(app, url, 'acme');
    rival = await registerIntegrator(app, url, 'rival');
    const db = app.store.db;
    // Small pages and heads: the same code paths as the defaults, reaching many pages with few events.
    const sizes = { pageRows: 8, sealAt: 4, sealEvery: 4 };
    repos = { pages: createEventsRepo(db, 'pages', sizes), indexes: createEventsRepo(db, 'indexes') };
    const repo = repos.pages;
    let i = 0;
    doc = (createdAtSec: number) => {
      i += 1;
      return seedDoc(
        {
          integratorId: i % 5 === 0 ? rival.integratorId : acme.integratorId,
          createdAt: new Date(T0 + createdAtSec * 1000),
          accountId: i % 4 === 3 ? null : accounts[i % 3],
          userId: i % 3 === 2 ? null : users[(i >> 1) % 3],
          transactionId: i % 7 < 2 ? txns[i % 2] : null,
          eventType: types[(i * 7) % 11 === 0 ? 3 : i % 3],
        },
        i,
      );
    };
    // Bulk filing (a key with ≥ sealAt rows goes straight to pages), two batches so the second appends.
    await repo.insertMany(Array.from({ length: 200 }, (_, n) => doc(Math.floor(n / 2))));
    await repo.insertMany(Array.from({ length: 120 }, (_, n) => doc(100 + Math.floor(n / 3))));
    // One-by-one ingestion: heads, sealing triggered every ~sealEvery rows of a key.
    for (let n = 0; n < 150; n++) await repo.insertOnce(doc(140 + Math.floor(n / 2)));
    // Late rows (a repaired ingest): older than sealed pages, filed into the pages that cover them when sealed.
    for (let n = 0; n < 30; n++) await repo.insertOnce(doc((n * 37) % 200));
    // Re-writes of rows that are already sealed (a re-submission repeating the listing write).
    const stored = await repo.collection.find({}).limit(40).toArray();
    for (const e of stored) await repo.index(e);
    // A sealer that died after writing pages, before pulling the rows out of its head.
    const key = `${acme.integratorId}|all|`;
    const late = doc(5); // filed into its heads without a seal check, so the all-key head is not empty
    await repo.collection.insertOne(late);
    for (const k of keysOf(late)) {
      const update = { $addToSet: { e: toRow(late) }, $setOnInsert: { pages: 0 } };
      await repo.pages.heads.updateOne({ _id: headId(k) }, update, { upsert: true });
    }
    const head = await repo.pages.heads.findOne({ _id: headId(key) });
    assert.ok(head && head.e.length > 0 && head.pages > 0, 'the all-key has a head and sealed pages');
    await fileIntoPages(repo.pages, key, head.pages, head.e);
    // A journal mover that died after adding the journal's entries to their heads, before pulling them out of it.
    // The ingests above may have ended on a move (1 in journalEvery writes checks the journal): one more then
    // leaves a single entry, below journalAt, so the journal is never empty here whatever the random ids were.
    const journalOf = () => repo.pages.journals.findOne({ _id: journalId(acme.integratorId) });
    if (!(await journalOf())?.e.length) await repo.insertOnce(doc(6));
    const journal = await journalOf();
    assert.ok(journal && journal.e.length > 0, 'the journal holds entries');
    await writeUpserts(
      repo.pages,
      journal.e.flatMap((e) => e.k.map((suffix) => addToHead(`${acme.integratorId}|${suffix}`, [e.r]))),
    );
    // Dead leases on the type key and on the journal: the next seal or move clears them, a later one runs.
    await repo.pages.locks.insertOne({ _id: `${acme.integratorId}|type|customer.created`, at: new Date(0) });
    await repo.pages.locks.insertOne({ _id: journalId(acme.integratorId), at: new Date(0) });
    for (let n = 0; n < 40; n++) await repo.insertOnce(doc(220 + n * 2));
    all = await repo.collection.find({}).toArray();
    const sealed = await repo.pages.pages.countDocuments({ _id: { $regex: /^p\|/ } });
    assert.ok(sealed > 20, `the data spans many sealed pages (${sealed})`);
  });
  after(async () => closeTestApp(app));

  for (const layout of ['pages', 'indexes'] as const) {
    it(`${layout} layout: every page of every walk equals the reference`, async () => {
      await fc.assert(
        fc.asyncProperty(filtersArb, limitArb, fc.boolean(), fc.boolean(), async (filters, limit, asRival, churn) => {
          const integratorId = (asRival ? rival : acme).integratorId;
          const expected = reference(all, integratorId, filters);
          let position: Position | undefined;
          const got: string[] = [];
          for (let n = 0; n < MAX_PAGES; n++) {
            const rows = await repos[layout].list(integratorId, filters, position, limit + 1);
            const { page, next } = keysetPage(rows, limit);
            got.push(...page.map((r) => r._id));
            assert.deepEqual(got, expected.slice(0, got.length));
            assert.equal(next === null, got.length === expected.length, 'a next page exactly when more remain');
            if (!next) break;
            position = next;
            if (churn && layout === 'pages') {
              // Between two pages: a newer event arrives, the journal moves and the query's key is sealed, so rows
              // the cursor has still to list move from the journal and the head into pages opened after the cursor
              // was issued.
              const e = doc((future += 1));
              await repos.pages.insertOnce(e);
              all.push(e);
              await moveJournal(repos.pages.pages, integratorId);
              await seal(repos.pages.pages, keyFor(integratorId, filters));
            }
          }
        }),
        { numRuns: layout === 'pages' ? 150 : 50, seed: Number(process.env.PROPERTY_SEED ?? Date.now() % 2 ** 31) },
      );
    });
  }

  it('a cursor issued from a head row still finds the rows a later seal moved into a new page', async () => {
    const integratorId = randomUUID(); // a key of its own: the top page is full, the head holds 3 newer rows
    const repo = createEventsRepo(app.store.db, 'pages', { pageRows: 8, sealAt: 4, sealEvery: 1_000_000 });
    // (journalAt 4, journalEvery 1,000,000: the three rows stay in the journal until moved by hand)
    const at = (s: number) => seedDoc({ integratorId, createdAt: new Date(T0 + s * 1000) }, s);
    const docs = Array.from({ length: 11 }, (_, s) => at(s + 1));
    await repo.insertMany(docs.slice(0, 8));
    for (const d of docs.slice(8)) await repo.insertOnce(d);
    const first = keysetPage(await repo.list(integratorId, {}, undefined, 2), 1);
    assert.equal(first.page[0]?._id, docs[10]!._id);
    assert.ok(await moveJournal(repo.pages, integratorId));
    assert.ok(await seal(repo.pages, `${integratorId}|all|`));
    assert.ok(await repo.pages.sealed.findOne({ _id: `p|${integratorId}|all||1` }), 'the seal opened page 1');
    const rest = await repo.list(integratorId, {}, first.next!, 100);
    assert.deepEqual(
      rest.map((r) => r._id),
      docs
        .slice(0, 10)
        .reverse()
        .map((d) => d._id),
    );
  });

  it('through the API: signed requests and opaque cursors walk to the same result', async () => {
    await fc.assert(
      fc.asyncProperty(filtersArb, limitArb, async (filters, limit) => {
        const expected = reference(all, acme.integratorId, filters);
        const got: string[] = [];
        let cursor: string | undefined;
        for (let n = 0; n < MAX_PAGES; n++) {
          const res = await acme.client.listEventsPage({ ...filters, limit, cursor });
          got.push(...res.events.map((e) => e.id));
          assert.deepEqual(got, expected.slice(0, got.length));
          cursor = res.nextCursor ?? undefined;
          if (!cursor) break;
        }
        if (!cursor) assert.equal(got.length, expected.length);
      }),
      { numRuns: 30 },
    );
  });
});
