// Keyset paging of GET /v1/query/events under load: 1,080 events paged with limit 7 while writers keep adding more.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { FastifyInstance } from 'fastify';
import type { EventHistoryItem, EventPage } from '../../src/client/events.js';
import type { EventDoc } from '../../src/store/documents.js';
import { buildTestApp, closeTestApp } from '../helpers/app.js';
import { postEvent, sampleEvent, seedDoc } from '../helpers/events.js';
import { listen, registerIntegrator, type TestIntegrator } from '../helpers/integrators.js';

const newestFirst = (a: EventDoc, b: EventDoc) =>
  b.createdAt.getTime() - a.createdAt.getTime() || (a._id < b._id ? 1 : a._id > b._id ? -1 : 0);

describe('GET /v1/query/events: paging 1,000+ events while events arrive', () => {
  let app: FastifyInstance;
  let acme: TestIntegrator;

  before(async () => {
    ({ app } = await buildTestApp());
    const baseUrl = await listen(app);
    acme = await registerIntegrator(app, baseUrl, 'acme');
  });
  after(async () => closeTestApp(app));

  it('pages with limit 7 with no gap, no repeat, in order', async () => {
    const base = Date.now() - 3_600_000;
    // 1,050 seeded in the past (ties of up to 4 per millisecond) plus 30 through the real route.
    const docs = Array.from({ length: 1050 }, (_, i) =>
      seedDoc({ integratorId: acme.integratorId, createdAt: new Date(base + Math.floor(i / 4)) }, i),
    );
    await app.store.events.insertMany(docs);
    for (let i = 0; i < 30; i++) {
      assert.equal((await postEvent(app, sampleEvent(acme.integratorId))).statusCode, 201);
    }
    const existing = (await app.store.events.collection.find({}).toArray()).sort(newestFirst).map((d) => d._id);
    assert.equal(existing.length, 1080);

    // Writers keep adding events (newer ones through the route, and some through the repository) while we page.
    let writing = true;
    let written = 0;
    const writer = (async () => {
      while (writing) {
        await postEvent(app, sampleEvent(acme.integratorId));
        await app.store.events.insertMany([seedDoc({ integratorId: acme.integratorId, createdAt: new Date() }, 1)]);
        written += 2;
      }
    })();

    const seen: EventHistoryItem[] = [];
    let pages = 0;
    let cursor: string | undefined;
    try {
      do {
        const res: EventPage = await acme.client.listEventsPage({ limit: 7, cursor });
        assert.ok(res.events.length <= 7);
        seen.push(...res.events);
        cursor = res.nextCursor ?? undefined;
        pages++;
      } while (cursor);
    } finally {
      writing = false;
      await writer;
    }
    assert.ok(written > 0, 'events were inserted while paging');
    assert.ok(pages >= Math.ceil(1080 / 7));
    const seenIds = seen.map((e) => e.id);
    assert.equal(new Set(seenIds).size, seenIds.length, 'no repeat');
    for (let i = 1; i < seen.length; i++) {
      const [a, b] = [seen[i - 1]!, seen[i]!];
      assert.ok(a.createdAt > b.createdAt || (a.createdAt === b.createdAt && a.id > b.id), `order at ${i}`);
    }
    // Every event that existed before paging began appears, in order (newer ones may lead on the first page).
    assert.deepEqual(
      seenIds.filter((id) => existing.includes(id)),
      existing,
      'no gap',
    );
  });
});
