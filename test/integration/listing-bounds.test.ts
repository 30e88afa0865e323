// Issue 45 item 3: every listing page reads under a scan bound and a time limit (src/store/listing/scan-budget.ts). A
// filter that matches few or none of a long history answers a short (or empty) page with a cursor that goes on where
// the read stopped, never a page that reads the whole history; walking the cursors still lists exactly the rows a
// plain reference query lists, in order, on both layouts, and through the API; an integrator ahead of its scan pace
// (src/store/listing/scan-pace.ts) waits between reads.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { keysetPage, type Position } from '../../src/store/cursor.js';
import { createDeliveriesRepo, type DeliveriesRepo } from '../../src/store/deliveries-repo.js';
import type { DeliveryDoc, EventDoc } from '../../src/store/documents.js';
import { createEventsRepo, type EventsRepo } from '../../src/store/events-repo.js';
import {
  createScanPace,
  type DeliveryListFilters,
  type EventListFilters,
  type ListingBounds,
} from '../../src/store/listing/index.js';
import { buildTestApp, closeTestApp } from '../helpers/app.js';
import { seedDoc } from '../helpers/events.js';
import { listen, registerIntegrator, type TestIntegrator } from '../helpers/integrators.js';

const T0 = Date.UTC(2026, 2, 1);
const DELIVERIES = 600;
const EVENTS = 400;
const sizes = { pageRows: 16, sealAt: 8, sealEvery: 4 };
/** Small enough that every rare filter below stops many times. */
const tight: ListingBounds = { scanRows: 40, timeMs: 60_000 };
const newest = <T extends { createdAt: Date; _id: string }>(a: T, b: T) =>
  b.createdAt.getTime() - a.createdAt.getTime() || (a._id < b._id ? 1 : -1);

/** Every page of a walk: the ids in order, how many pages, and how many ended early with a cursor. */
async function walk<T extends { _id: string; createdAt: Date; page?: number }>(
  list: (position: Position | undefined, limit: number) => Promise<T[] & { resumeAt?: Position }>,
  limit: number,
): Promise<{ ids: string[]; pages: number; short: number }> {
  const ids: string[] = [];
  let position: Position | undefined;
  let short = 0;
  for (let pages = 1; pages <= 500; pages++) {
    const rows = await list(position, limit + 1);
    const { page, next } = keysetPage(rows, limit);
    ids.push(...page.map((r) => r._id));
    if (next && page.length < limit) short += 1;
    if (!next) return { ids, pages, short };
    position = next;
  }
  throw new Error('the walk did not end within 500 pages');
}

describe('listing pages read under a scan bound', () => {
  let app: FastifyInstance;
  let acme: TestIntegrator;
  const sub = randomUUID();
  let deliveries: DeliveryDoc[];
  let events: EventDoc[];
  const repos = {} as Record<'pages' | 'indexes', { deliveries: DeliveriesRepo; events: EventsRepo }>;
  const rareAccount = randomUUID();

  before(async () => {
    ({ app } = await buildTestApp({ HERALD_LISTING_SCAN_ROWS: '100' }));
    acme = await registerIntegrator(app, await listen(app), 'acme');
    const db = app.store.db;
    for (const layout of ['pages', 'indexes'] as const)
      repos[layout] = {
        deliveries: createDeliveriesRepo(db, layout, sizes, tight),
        events: createEventsRepo(db, layout, sizes, tight),
      };
    // Every delivery failed but one in 150 (succeeded), many sharing a second.
    deliveries = Array.from({ length: DELIVERIES }, (_, k) => ({
      _id: randomUUID(),
      integratorId: acme.integratorId,
      subscriptionId: sub,
      eventId: randomUUID(),
      eventType: 'customer.created',
      createdAt: new Date(T0 + Math.floor(k / 3) * 1000),
      status: k % 150 === 7 ? 'succeeded' : 'failed',
      attemptCount: 1,
      updatedAt: new Date(T0),
      nextAttemptAt: null,
      terminalReason: null,
      lastResponseSummary: null,
    }));
    // Both layouts read the same collections: file the page documents (pages) once, through the pages repository.
    await repos.pages.deliveries.insertMany(deliveries);
    // Events of one account, one in 50 of them a customer.created (a two-filter query matches few).
    events = Array.from({ length: EVENTS }, (_, k) =>
      seedDoc(
        {
          integratorId: acme.integratorId,
          createdAt: new Date(T0 + k * 1000),
          accountId: rareAccount,
          eventType: k % 50 === 3 ? 'customer.created' : 'customer.updated',
        },
        k,
      ),
    );
    await repos.pages.events.insertMany(events);
  });
  after(async () => await closeTestApp(app));

  const deliveriesOf = (f: DeliveryListFilters) =>
    deliveries
      .filter((d) => (f.status === undefined || d.status === f.status) && (f.subscriptionId ?? sub) === sub)
      .sort(newest)
      .map((d) => d._id);
  const eventsOf = (f: EventListFilters) =>
    events
      .filter((e) => e.accountId === f.accountId && (f.eventType === undefined || e.eventType === f.eventType))
      .sort(newest)
      .map((e) => e._id);

  for (const layout of ['pages', 'indexes'] as const) {
    it(`${layout}: a rare delivery status over a long history comes in short pages that walk to the reference`, async () => {
      for (const f of [{ status: 'succeeded' }, { status: 'succeeded', subscriptionId: sub }, { status: 'pending' }]) {
        const filters = f as DeliveryListFilters;
        const got = await walk(
          (position, limit) => repos[layout].deliveries.list(acme.integratorId, filters, position ?? null, limit),
          3,
        );
        assert.deepEqual(got.ids, deliveriesOf(filters), JSON.stringify(f));
        // On `indexes` a status alone is an index's equality (it reads only matches); with a subscription, the
        // subscription's index is read and the status checked in code.
        const scans = f.status === 'succeeded' && (layout === 'pages' || 'subscriptionId' in f);
        if (scans) assert.ok(got.short > 3, `the bound stopped pages early (${got.short})`);
      }
    });

    it(`${layout}: events by two filters that match few come in short pages that walk to the reference`, async () => {
      const f: EventListFilters = { accountId: rareAccount, eventType: 'customer.created' };
      const got = await walk((position, limit) => repos[layout].events.list(acme.integratorId, f, position, limit), 2);
      assert.deepEqual(got.ids, eventsOf(f));
      assert.ok(got.short > 3, `the bound stopped pages early (${got.short})`);
      // Without the second filter every row matches: full pages, as without a bound.
      const all = await walk(
        (position, limit) => repos[layout].events.list(acme.integratorId, { accountId: rareAccount }, position, limit),
        25,
      );
      assert.deepEqual(all.ids, eventsOf({ accountId: rareAccount }));
    });

    it(`${layout}: pages of an integrator ahead of its scan pace wait between reads; the walk still reaches the reference`, async () => {
      const bounds: ListingBounds = { scanRows: 1e6, timeMs: 100, pace: createScanPace(200) };
      const paced = createEventsRepo(app.store.db, layout, sizes, bounds);
      const f: EventListFilters = { accountId: rareAccount, eventType: 'customer.created' };
      const started = performance.now();
      const got = await walk((position, limit) => paced.list(acme.integratorId, f, position, limit), 2);
      const ms = performance.now() - started;
      assert.deepEqual(got.ids, eventsOf(f));
      // 400 rows at 200 a second, the first 200 at once: about a second of waits (tens of ms without the pace).
      assert.ok(ms >= 700, `the walk took ${Math.round(ms)} ms`);
      assert.ok(got.short > 3, `pages ended at their time with a cursor (${got.short})`);
    });
  }

  it('through the API: a short page with a cursor while the history goes on, then the end', async () => {
    const first = await acme.client.listDeliveriesPage({ status: 'succeeded', limit: 10 });
    assert.ok(first.deliveries.length < 10 && first.nextCursor, 'the bound stopped the read, not the history');
    const ids = first.deliveries.map((d) => d.id);
    let cursor: string | null = first.nextCursor;
    let pages = 1;
    while (cursor) {
      const page = await acme.client.listDeliveriesPage({ status: 'succeeded', limit: 10, cursor });
      ids.push(...page.deliveries.map((d) => d.id));
      cursor = page.nextCursor;
      pages += 1;
      assert.ok(pages <= DELIVERIES / 50, `the walk ends (${pages} pages)`);
    }
    assert.deepEqual(ids, deliveriesOf({ status: 'succeeded' }));
  });
});
