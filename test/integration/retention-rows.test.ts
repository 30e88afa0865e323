// The retention purge on the `pages` layout removes every row of a purged delivery from every key it is filed under:
// its creation keys' rows (with its event's type), its status keys' rows (without), and rows filed by an earlier
// version (no type anywhere), over sealed pages, heads and the journal.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import type { Db } from 'mongodb';
import { purgeExpired, type RetentionPolicy } from '../../src/retention/purge.js';
import type { DeliveryDoc } from '../../src/store/documents.js';
import { createStore } from '../../src/store/index.js';
import { deliveryEntries, statusEntries, type DeliveryRow } from '../../src/store/listing/index.js';
import { fileRowsBulk } from '../../src/store/pages/index.js';
import { buildTestApp, closeTestApp } from '../helpers/app.js';
import { seedDoc } from '../helpers/events.js';
import { DAY, delivery } from '../helpers/retention-seed.js';

const sizes = { pageRows: 16, sealAt: 8, sealEvery: 4 };
const policy: RetentionPolicy = { retentionMs: DAY, batch: 40, pauseMs: 0, duty: 1, budgetMs: 120_000 };

describe('the retention purge and the deliveries listing rows', () => {
  let app: FastifyInstance;
  let db: Db;
  const now = Date.now();
  const layout = 'pages';
  before(async () => {
    ({ app } = await buildTestApp());
    db = app.store.db;
  });
  after(async () => await closeTestApp(app));

  it('pages: a purged delivery leaves no row in any key, its status keys and rows of an earlier version included', async () => {
    const store = createStore(db, { listingLayout: layout, pageSizes: sizes });
    const integratorId = randomUUID();
    await db.collection<{ _id: string }>('integrators').insertOne({ _id: integratorId, name: 'r' } as never);
    const sub = randomUUID();
    // Cancelled two days ago, filed in creation order over several sealed pages: under `cancelled` too (rows
    // without the event type, unlike its creation keys'); every third filed as an earlier version did (no type).
    const old = Array.from({ length: 48 }, (_, k) => {
      const e = seedDoc({ integratorId, createdAt: new Date(now - 2 * DAY + k * 1000) }, k);
      return {
        e,
        d: delivery(e, sub, { status: 'cancelled', updatedAt: new Date(now - 2 * DAY) }),
        legacy: k % 3 === 0,
      };
    });
    await store.events.insertMany(old.map((o) => o.e));
    for (const o of old) {
      if (!o.legacy) {
        await store.deliveries.insertMany([o.d]);
        continue;
      }
      await db.collection<DeliveryDoc>('deliveries').insertOne(o.d);
      const untyped = [...deliveryEntries(o.d), ...statusEntries(o.d, o.d.status)].map(({ key, row }) => {
        const { t: _type, ...rest } = row as DeliveryRow;
        return { key, row: rest };
      });
      await fileRowsBulk(store.deliveries.pages, untyped);
    }
    const rowsOf = async () => {
      const docs = await db
        .collection<{ _id: string; e?: { i?: string; r?: { i: string } }[] }>('event_pages')
        .find({ _id: { $regex: `^[jhp]\\|${integratorId}` } })
        .toArray();
      return new Set(docs.flatMap((d) => (d.e ?? []).map((r) => r.i ?? r.r?.i)));
    };
    const before = await rowsOf();
    assert.ok(
      old.every((o) => before.has(o.d._id)),
      'filed',
    );
    const sealed = await db
      .collection('event_pages')
      .countDocuments({ _id: { $regex: `^p\\|${integratorId}\\|d-status` } as never });
    assert.ok(sealed > 1, `the cancelled key has sealed pages (${sealed})`);
    await purgeExpired({ store, now: () => new Date(now) }, policy);
    const left = await rowsOf();
    for (const { d, legacy } of old) assert.ok(!left.has(d._id), `a row of ${d._id} (legacy: ${legacy}) is left`);
    assert.equal(await db.collection('deliveries').countDocuments({ integratorId } as never), 0);
  });
});
