// Property: every filter combination and every cursor walk of the deliveries listing equals a plain reference query
// (all of the integrator's deliveries as stored now, filtered and sorted in memory), for both listing layouts, on the
// real MongoDB-wire server, over deliveries that went through every write path: bulk filing, the hand-off's rows
// filed with their event, first attempts of every outcome, later attempts (a delivery leaving `pending`), deliveries
// whose first attempt is still in flight (filed, not recorded: not listed), cancellation of a subscription's pending
// deliveries, a manual retry's reopening and a failure without an attempt.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import type { FastifyInstance } from 'fastify';
import { deliveryStatuses, type DeliveryStatus } from '../../src/domain/delivery-vocabulary.js';
import { keysetPage, type Position } from '../../src/store/cursor.js';
import { createDeliveriesRepo, type DeliveriesRepo, type DeliveryIdentity } from '../../src/store/deliveries-repo.js';
import {
  deliveryEntries,
  deliveryKeyFor,
  statusEntries,
  type DeliveryListFilters,
  type DeliveryRow,
} from '../../src/store/listing/index.js';
import { deliveryIdOf } from '../../src/store/derived-ids.js';
import type { AttemptDoc, DeliveryDoc } from '../../src/store/documents.js';
import { fileRowsBulk, moveJournal, seal } from '../../src/store/pages/index.js';
import { createEventsRepo } from '../../src/store/events-repo.js';
import { buildTestApp, closeTestApp } from '../helpers/app.js';
import { seedDoc } from '../helpers/events.js';
import { listen, registerIntegrator, type TestIntegrator } from '../helpers/integrators.js';

const T0 = Date.UTC(2026, 0, 1);
const sizes = { pageRows: 8, sealAt: 4, sealEvery: 4 };
const MAX_PAGES = 25;
const TYPES = ['customer.created', 'customer.updated', 'customer.active'] as const;

/** The plain reference: the listing's semantics written out over every stored delivery. */
function reference(all: readonly DeliveryDoc[], integratorId: string, f: DeliveryListFilters): string[] {
  return all
    .filter(
      (d) =>
        d.integratorId === integratorId &&
        (f.subscriptionId === undefined || d.subscriptionId === f.subscriptionId) &&
        (f.eventId === undefined || d.eventId === f.eventId) &&
        (f.status === undefined || d.status === f.status) &&
        (f.eventType === undefined || d.eventType === f.eventType) &&
        (f.createdAfter === undefined || d.createdAt > f.createdAfter) &&
        (f.createdBefore === undefined || d.createdAt < f.createdBefore),
    )
    .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || (a._id < b._id ? 1 : -1))
    .map((d) => d._id);
}

const attemptOf = (d: DeliveryIdentity, n: number, ok: boolean): AttemptDoc => ({
  _id: randomUUID(),
  integratorId: d.integratorId,
  deliveryId: d._id,
  attemptNumber: n,
  outcome: ok ? 'succeeded' : 'http_error',
  statusCode: ok ? 204 : 503,
  error: null,
  latencyMs: 3,
  responseSummary: null,
  signedAt: d.createdAt,
  signedTimestamp: '0',
  signingKeyId: randomUUID(),
  actor: 'system',
  address: '127.0.0.1',
  createdAt: d.createdAt,
});

describe('deliveries listing property: every filter and cursor against a reference query', () => {
  let app: FastifyInstance;
  let acme: TestIntegrator;
  let rival: TestIntegrator;
  let repos: Record<'pages' | 'indexes', DeliveriesRepo>;
  let all: DeliveryDoc[];
  const subs = [randomUUID(), randomUUID(), randomUUID()];
  const eventIds: string[] = [];
  let n = 0;
  /** A delivery's identity, created at T0 + sec (many ties). */
  const identity = (integratorId: string, sec: number, sub = subs[n % 3]!): DeliveryIdentity => {
    n += 1;
    const eventId = randomUUID();
    if (n % 9 === 0) eventIds.push(eventId);
    const createdAt = new Date(T0 + sec * 1000);
    return {
      _id: deliveryIdOf(eventId, sub),
      integratorId,
      subscriptionId: sub,
      eventId,
      eventType: TYPES[n % TYPES.length]!,
      createdAt,
    };
  };
  const record = async (repo: DeliveriesRepo, d: DeliveryIdentity, attempt: number, status: DeliveryStatus) =>
    await repo.recordAttempt(d, attemptOf(d, attempt, status === 'succeeded'), {
      status,
      attemptCount: attempt,
      nextAttemptAt: status === 'pending' ? new Date(T0 + 1e9) : null,
      terminalReason: status === 'failed' ? 'retries_exhausted' : null,
      lastResponseSummary: null,
      updatedAt: new Date(),
    });

  before(async () => {
    ({ app } = await buildTestApp());
    const url = await listen(app);
    acme = await registerIntegrator(app, url, 'acme');
    rival = await registerIntegrator(app, url, 'rival');
    const db = app.store.db;
    repos = { pages: createDeliveriesRepo(db, 'pages', sizes), indexes: createDeliveriesRepo(db, 'indexes') };
    const repo = repos.pages;
    const events = createEventsRepo(db, 'pages', sizes);
    const owner = (k: number) => (k % 5 === 0 ? rival : acme).integratorId;

    // Bulk filing, every status.
    const bulk: DeliveryDoc[] = Array.from({ length: 160 }, (_, k) => {
      const d = identity(owner(k), Math.floor(k / 2));
      const status = deliveryStatuses[k % 4]!;
      return {
        ...d,
        status,
        attemptCount: 1,
        updatedAt: d.createdAt,
        nextAttemptAt: null,
        terminalReason: null,
        lastResponseSummary: null,
      };
    });
    await repo.insertMany(bulk);
    // Deliveries filed by an earlier version, whose rows hold no event type (the listing checks it on the delivery);
    // some then enter another status and are filed under it by this version.
    const legacy: DeliveryDoc[] = Array.from({ length: 24 }, (_, k) => {
      const d = identity(owner(k), 30 + Math.floor(k / 3));
      return { ...bulk[0]!, ...d, status: 'pending', attemptCount: 1, updatedAt: d.createdAt };
    });
    await repo.collection.insertMany(legacy);
    const untyped = legacy.flatMap((d) => [...deliveryEntries(d), ...statusEntries(d, d.status)]);
    const stripped = (r: DeliveryRow): DeliveryRow => ({ c: r.c, i: r.i, s: r.s, e: r.e });
    await fileRowsBulk(
      repo.pages,
      untyped.map(({ key, row }) => ({ key, row: stripped(row as DeliveryRow) })),
    );
    for (const [k, d] of legacy.entries())
      if (k % 2 === 0) await record(repo, d, 2, k % 4 === 0 ? 'failed' : 'pending');
    // The ingest path: the hand-off's rows filed with the event (one to three subscriptions), then first attempts.
    const open: DeliveryIdentity[] = [];
    for (let k = 0; k < 70; k++) {
      const integratorId = owner(k);
      const createdAt = new Date(T0 + (60 + k) * 1000);
      const event = seedDoc({ integratorId, createdAt, eventType: TYPES[k % TYPES.length]! }, k);
      if (k % 6 === 0) eventIds.push(event._id);
      const matched = subs.slice(0, 1 + (k % 3));
      await events.insertOnce(event, undefined, matched);
      for (const [j, sub] of matched.entries()) {
        const d = {
          ...identity(integratorId, 0, sub),
          _id: deliveryIdOf(event._id, sub),
          eventId: event._id,
          eventType: event.eventType,
        };
        d.createdAt = event.createdAt;
        if ((k + j) % 10 === 9) continue; // its first attempt is still in flight: filed, not recorded
        const status = (['succeeded', 'pending', 'succeeded', 'failed'] as const)[(k + j) % 4]!;
        await record(repo, d, 1, status);
        if (status === 'pending') open.push(d);
      }
    }
    // Later attempts: some pending deliveries succeed or fail (their pending rows stay, as candidates only).
    for (const [k, d] of open.entries())
      if (k % 3 !== 0) await record(repo, d, 2, k % 3 === 1 ? 'succeeded' : 'failed');
    // DELETE of a subscription: its pending deliveries end cancelled.
    const cancelled = await repo.cancelPendingOf(acme.integratorId, subs[0]!, 'subscription_deleted');
    assert.ok(cancelled.length > 0, 'some pending deliveries were cancelled');
    // A manual retry reopens terminal deliveries; a signing key that cannot be opened fails one without an attempt.
    // And succeeded ones already sealed into pages (the bulk path's).
    const reopened = [...bulk.filter((d) => d.status === 'succeeded').slice(0, 4), ...open.slice(0, 6)];
    for (const d of reopened) await repo.reopen(d, new Date());
    await repo.fail(open[7]!, 'signing_key_unavailable', new Date());
    all = await repo.collection.find({}).toArray();
    const sealed = await repo.pages.pages.countDocuments({ _id: { $regex: /\|d-/ } });
    assert.ok(sealed > 20, `the deliveries span many page documents (${sealed})`);
  });
  after(async () => closeTestApp(app));

  const pick = <T>(xs: readonly T[]) => fc.option(fc.constantFrom(...xs), { nil: undefined });
  // Bounds fall on and between the deliveries' creation times (T0 + 0…130 s, many ties): exclusive both ways.
  const instant = fc.option(
    fc.integer({ min: -1, max: 131 }).map((sec) => new Date(T0 + sec * 1000 + (sec % 4 === 0 ? 500 : 0))),
    { nil: undefined, freq: 3 },
  );
  const filtersArb = () =>
    fc.record({
      subscriptionId: pick(subs),
      eventId: pick(eventIds),
      status: pick(deliveryStatuses),
      eventType: pick(TYPES),
      createdAfter: instant,
      createdBefore: instant,
    });
  const asQuery = (f: DeliveryListFilters) => ({
    ...f,
    createdAfter: f.createdAfter?.toISOString(),
    createdBefore: f.createdBefore?.toISOString(),
  });
  const limitArb = fc.oneof(fc.integer({ min: 1, max: 9 }), fc.constantFrom(31, 100, 250));

  for (const layout of ['pages', 'indexes'] as const) {
    it(`${layout} layout: every page of every walk equals the reference`, async () => {
      await fc.assert(
        fc.asyncProperty(filtersArb(), limitArb, fc.boolean(), fc.boolean(), async (f, limit, asRival, churn) => {
          const integratorId = (asRival ? rival : acme).integratorId;
          const expected = reference(all, integratorId, f);
          const current = new Map(all.map(({ attempts: _attempts, ...d }) => [d._id, d]));
          let position: Position | null = null;
          const got: string[] = [];
          for (let p = 0; p < MAX_PAGES; p++) {
            const rows = await repos[layout].list(integratorId, f, position, limit + 1);
            const { page, next } = keysetPage(rows, limit);
            got.push(...page.map((r) => r._id));
            assert.deepEqual(got, expected.slice(0, got.length), JSON.stringify(f));
            // Each listed delivery as it is now, not as it was when filed.
            for (const { page: _page, ...listed } of page) assert.deepEqual(listed, current.get(listed._id));
            assert.equal(next === null, got.length === expected.length, 'a next page exactly when more remain');
            if (!next) break;
            position = next;
            if (churn && layout === 'pages') {
              // Between two pages: a newer delivery is recorded, the journal moves and the query's key is sealed, so
              // rows the cursor has still to list move into pages opened after the cursor was issued.
              const d = identity(integratorId, 10_000 + n, f.subscriptionId);
              await repos.pages.insertMany([
                {
                  ...d,
                  status: f.status ?? 'pending',
                  attemptCount: 0,
                  updatedAt: d.createdAt,
                  nextAttemptAt: null,
                  terminalReason: null,
                  lastResponseSummary: null,
                },
              ]);
              await moveJournal(repos.pages.pages, integratorId);
              await seal(repos.pages.pages, deliveryKeyFor(integratorId, f));
            }
          }
          all = await repos.pages.collection.find({}).toArray();
        }),
        { numRuns: layout === 'pages' ? 120 : 40, seed: Number(process.env.PROPERTY_SEED ?? Date.now() % 2 ** 31) },
      );
    });
  }

  it('through the API: signed requests and opaque cursors walk to the same result', async () => {
    await fc.assert(
      fc.asyncProperty(filtersArb(), limitArb, async (f, limit) => {
        const expected = reference(all, acme.integratorId, f);
        const got: string[] = [];
        let cursor: string | undefined;
        for (let p = 0; p < MAX_PAGES; p++) {
          const res = await acme.client.listDeliveriesPage({ ...asQuery(f), limit, cursor });
          got.push(...res.deliveries.map((d) => d.id));
          assert.deepEqual(got, expected.slice(0, got.length));
          cursor = res.nextCursor ?? undefined;
          if (!cursor) break;
        }
        if (!cursor) assert.equal(got.length, expected.length);
      }),
      { numRuns: 25 },
    );
  });
});
