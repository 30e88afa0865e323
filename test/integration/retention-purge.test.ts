// Issue 44 item 1: the retention purge (src/retention) on both listing layouts. What ended before the cutoff leaves
// with its attempts, events and listing rows; what is pending, held, ended recently, inside a running campaign's
// window, or an event one of them needs, stays. The listings then end where the kept history ends and take new rows
// as before; a second run purges nothing; a run that stopped half-way is finished by the next.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import type { Db } from 'mongodb';
import { purgeExpired, type RetentionPolicy } from '../../src/retention/purge.js';
import { attemptEntryId } from '../../src/store/attempts-repo.js';
import type { SubscriptionDoc } from '../../src/store/documents.js';
import { createStore } from '../../src/store/index.js';
import { buildTestApp, closeTestApp } from '../helpers/app.js';
import { seedDoc } from '../helpers/events.js';
import { DAY, delivery, idsOf, seed, walk, type Seeded } from '../helpers/retention-seed.js';

const sizes = { pageRows: 16, sealAt: 8, sealEvery: 4 };
const policy: RetentionPolicy = { retentionMs: DAY, batch: 40, pauseMs: 0, duty: 1, budgetMs: 120_000 };

describe('the retention purge', () => {
  let app: FastifyInstance;
  let db: Db;
  const now = Date.now();
  before(async () => {
    ({ app } = await buildTestApp());
    db = app.store.db;
  });
  after(async () => await closeTestApp(app));

  for (const layout of ['pages', 'indexes'] as const) {
    it(`${layout}: purges what ended before the cutoff and keeps the rest, listings included`, async () => {
      const store = createStore(db, { listingLayout: layout, pageSizes: sizes });
      const plain = await seed(db, store, now, null);
      // A running campaign over the second half of another integrator's window: nothing from its start is purged.
      const campaignSince = now - 2 * DAY + 60_000;
      const withCampaign = await seed(db, store, now, campaignSince);
      const campaignId = randomUUID();
      await db.collection('campaign_progress').insertOne({
        _id: campaignId,
        integratorId: withCampaign.integratorId,
        window: {
          subscriptionId: randomUUID(),
          since: new Date(campaignSince).toISOString(),
          until: new Date(now).toISOString(),
          statuses: ['failed'],
        },
        state: 'running',
        updatedAt: new Date(now - 2 * DAY),
      } as never);
      // An ended campaign recorded two days ago: its progress leaves.
      await db.collection('campaign_progress').insertOne({
        _id: randomUUID(),
        integratorId: plain.integratorId,
        window: { since: new Date(0).toISOString() },
        state: 'completed',
        updatedAt: new Date(now - 2 * DAY),
      } as never);
      // Deleted subscriptions: two days ago (purged with its key and health) and a minute ago (kept).
      const oldSub = randomUUID();
      const newSub = randomUUID();
      const subDoc = (id: string, deletedAt: Date) =>
        ({
          _id: id,
          integratorId: plain.integratorId,
          url: 'https://example.com/h',
          eventTypes: 'all',
          description: null,
          status: 'enabled',
          activeKeyId: `k-${id}`,
          createdAt: deletedAt,
          updatedAt: deletedAt,
          deletedAt,
        }) as SubscriptionDoc;
      await db
        .collection<SubscriptionDoc>('subscriptions')
        .insertMany([subDoc(oldSub, new Date(now - 2 * DAY)), subDoc(newSub, new Date(now - 60_000))]);
      await db.collection('signing_keys').insertMany([
        { _id: `k-${oldSub}`, subscriptionId: oldSub },
        { _id: `k-${newSub}`, subscriptionId: newSub },
      ] as never[]);
      await db
        .collection('endpoint_health')
        .insertOne({ _id: oldSub, failingSince: null, failures: 0, lastSuccessAt: null } as never);

      const report = await purgeExpired({ store, now: () => new Date(now) }, policy);
      assert.equal(report.more, false);

      for (const s of [plain, withCampaign]) {
        const keptDeliveries = s.deliveries.filter((d) => d.fate !== 'purged');
        const keptEvents = s.events.filter((e) => e.fate !== 'purged');
        const storedD = await db
          .collection('deliveries')
          .find({ integratorId: s.integratorId })
          .map((d) => String(d._id))
          .toArray();
        assert.deepEqual(storedD.sort(), keptDeliveries.map((d) => d.doc._id).sort(), 'deliveries kept');
        const storedE = await db
          .collection('events')
          .find({ integratorId: s.integratorId })
          .map((d) => String(d._id))
          .toArray();
        assert.deepEqual(storedE.sort(), keptEvents.map((e) => e.doc._id).sort(), 'events kept');
        // The listings end where the kept history ends.
        const listed = keptEvents.filter(
          (e) => e.doc.eventType !== 'webhook.test' && e.doc.eventType !== 'webhook.subscription_paused',
        );
        assert.deepEqual(await walk((p, l) => store.events.list(s.integratorId, {}, p, l)), idsOf(listed));
        assert.deepEqual(
          await walk((p, l) => store.events.list(s.integratorId, { accountId: 'acct-1' }, p, l)),
          idsOf(listed.filter((e) => e.doc.accountId === 'acct-1')),
        );
        assert.deepEqual(
          await walk((p, l) => store.deliveries.list(s.integratorId, {}, p ?? null, l)),
          idsOf(keptDeliveries),
        );
        assert.deepEqual(
          await walk((p, l) => store.deliveries.list(s.integratorId, { status: 'failed' }, p ?? null, l)),
          idsOf(keptDeliveries.filter((d) => d.doc.status === 'failed')),
        );
      }
      // Moved-out attempts leave with their delivery only.
      const attemptIds = (rows: Seeded['deliveries']) =>
        rows.filter((d) => d.doc.attemptCount === 8).map((d) => attemptEntryId(d.doc._id, 1));
      const purgedAttempts = attemptIds(plain.deliveries.filter((d) => d.fate === 'purged'));
      const keptAttempts = attemptIds(plain.deliveries.filter((d) => d.fate !== 'purged'));
      assert.ok(purgedAttempts.length > 0 && keptAttempts.length > 0);
      assert.equal(await db.collection('attempts').countDocuments({ _id: { $in: purgedAttempts } as never }), 0);
      assert.equal(
        await db.collection('attempts').countDocuments({ _id: { $in: keptAttempts } as never }),
        keptAttempts.length,
      );
      assert.deepEqual(
        await db
          .collection('subscriptions')
          .find({ _id: { $in: [oldSub, newSub] } as never })
          .map((d) => d._id)
          .toArray(),
        [newSub],
      );
      assert.deepEqual(
        await db
          .collection('signing_keys')
          .find({ _id: { $in: [`k-${oldSub}`, `k-${newSub}`] } as never })
          .map((d) => d._id)
          .toArray(),
        [`k-${newSub}`],
      );
      assert.equal(await db.collection('endpoint_health').countDocuments({ _id: oldSub as never }), 0);
      assert.ok(
        await db.collection('campaign_progress').findOne({ _id: campaignId as never }),
        'a running campaign keeps its progress',
      );

      // Nothing left to purge: a second run deletes nothing.
      const again = await purgeExpired({ store, now: () => new Date(now) }, policy);
      assert.deepEqual([again.deliveries, again.events, again.attempts, again.subscriptions], [0, 0, 0, 0]);

      // The listings take rows as before: a new event, and a kept held delivery that fails now (a late status row).
      const fresh = seedDoc({ integratorId: plain.integratorId, createdAt: new Date(now) }, 1);
      await store.events.insertMany([fresh]);
      const held = plain.deliveries.find((d) => d.fate === 'pending')!.doc;
      await store.deliveries.fail(held, 'retries_exhausted', new Date(now));
      assert.equal((await walk((p, l) => store.events.list(plain.integratorId, {}, p, l)))[0], fresh._id);
      assert.ok(
        (await walk((p, l) => store.deliveries.list(plain.integratorId, { status: 'failed' }, p ?? null, l))).includes(
          held._id,
        ),
      );
    });

    it(`${layout}: an event delivered to more subscriptions than a page head holds stays while one is pending`, async () => {
      const store = createStore(db, { listingLayout: layout, pageSizes: sizes });
      const integratorId = randomUUID();
      await db.collection<{ _id: string }>('integrators').insertOne({ _id: integratorId } as never);
      const event = seedDoc({ integratorId, createdAt: new Date(now - 2 * DAY) }, 1);
      // Twelve deliveries (more than sealAt, 8: the event's key has sealed pages), the last one still pending.
      const many = Array.from({ length: 12 }, (_, k) =>
        delivery(event, randomUUID(), k === 11 ? { status: 'pending', held: true } : {}),
      );
      await store.events.insertMany([event]);
      await store.deliveries.insertMany(many);
      const report = await purgeExpired({ store, now: () => new Date(now) }, policy);
      assert.equal(report.deliveries, 11);
      assert.ok(
        await db.collection('events').findOne({ _id: event._id as never }),
        'the event a pending delivery needs',
      );
      assert.ok(await db.collection('deliveries').findOne({ _id: many[11]!._id as never }));
    });

    it(`${layout}: a run that stopped after deleting documents is finished by the next run`, async () => {
      const store = createStore(db, { listingLayout: layout, pageSizes: sizes });
      const s = await seed(db, store, now, null);
      // As if a run had deleted these deliveries and their events, then stopped before their listing rows.
      const gone = s.deliveries.filter((d) => d.fate === 'purged').slice(0, 30);
      await db.collection('deliveries').deleteMany({ _id: { $in: gone.map((d) => d.doc._id) } as never });
      await db.collection('events').deleteMany({ _id: { $in: gone.map((d) => d.doc.eventId) } as never });
      await purgeExpired({ store, now: () => new Date(now) }, policy);
      const keptDeliveries = s.deliveries.filter((d) => d.fate !== 'purged');
      assert.deepEqual(
        await walk((p, l) => store.deliveries.list(s.integratorId, {}, p ?? null, l)),
        idsOf(keptDeliveries),
      );
      if (layout === 'pages') {
        // Rows only (a page's `below` and `hi` name positions, which may be a purged row's).
        const docs = await db
          .collection<{ _id: string; e?: { i?: string; r?: { i: string } }[] }>('event_pages')
          .find({ _id: { $regex: `^[jhp]\\|${s.integratorId}` } })
          .toArray();
        const left = new Set(docs.flatMap((d) => (d.e ?? []).map((r) => r.i ?? r.r?.i)));
        for (const d of gone) assert.ok(!left.has(d.doc._id), `a row of ${d.doc._id} is left`);
      }
    });

    it(`${layout}: a history that ended whole leaves no page, and its listings start again from nothing`, async () => {
      const store = createStore(db, { listingLayout: layout, pageSizes: sizes });
      const s = await seed(db, store, now, null, true);
      await purgeExpired({ store, now: () => new Date(now) }, policy);
      const kept = s.deliveries.filter((d) => d.fate !== 'purged');
      assert.equal(kept.length, 20, 'the last hour only');
      if (layout === 'pages') {
        // The old pages went (pages 0 … n − 1 of each key), and the keys of purged events only were deleted whole.
        const docs = await db
          .collection<{ _id: string }>('event_pages')
          .find({ _id: { $regex: `^[hp]\\|${s.integratorId}` } })
          .map((d) => d._id)
          .toArray();
        for (const key of [`${s.integratorId}|d-all|`, `${s.integratorId}|all|`])
          assert.ok(!docs.includes(`p|${key}|0`) && docs.includes(`h|${key}`), `${key}: page 0 left, or its head gone`);
        const purgedEvents = s.events.filter((e) => e.fate === 'purged').map((e) => e.doc._id);
        assert.ok(
          !docs.some((id) => purgedEvents.some((e) => id.endsWith(`|d-event|${e}`))),
          'a purged event key is left',
        );
      }
      // New rows, and an old one filed late (a delivery of the purged range entering `failed`), list as before.
      const fresh = Array.from({ length: 40 }, (_, k) =>
        seedDoc({ integratorId: s.integratorId, createdAt: new Date(now + k) }, k),
      );
      await store.events.insertMany(fresh);
      const late = kept[0]!.doc;
      await store.deliveries.fail({ ...late, createdAt: new Date(now - 2 * DAY) }, 'retries_exhausted', new Date(now));
      const listed = await walk((p, l) => store.events.list(s.integratorId, {}, p, l));
      assert.deepEqual(listed, [
        ...idsOf(fresh.map((doc) => ({ doc }))),
        ...idsOf(s.events.filter((e) => e.fate !== 'purged')),
      ]);
      assert.ok(
        (await walk((p, l) => store.deliveries.list(s.integratorId, { status: 'failed' }, p ?? null, l))).includes(
          late._id,
        ),
      );
    });
  }
});
