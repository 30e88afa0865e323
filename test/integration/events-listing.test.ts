// GET /v1/query/events over real HTTP with the signing client: filters, exclusive bounds, ordering, paging under
// concurrent inserts, cursors bound to filters and integrator, every 400, and tenant isolation.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { listEventsResponse } from '../../src/api/schemas/events.js';
import { HeraldApiError } from '../../src/client/http.js';
import type { EventFilters, EventHistoryItem } from '../../src/client/events.js';
import type { EventDoc } from '../../src/store/documents.js';
import { buildTestApp, closeTestApp } from '../helpers/app.js';
import { postEvent, sampleEvent, seedDoc } from '../helpers/events.js';
import { listen, registerIntegrator, type TestIntegrator } from '../helpers/integrators.js';

const T0 = Date.UTC(2026, 0, 1);
const ids = {
  account: [randomUUID(), randomUUID()] as const,
  user: [randomUUID(), randomUUID()] as const,
  tx: [randomUUID()] as const,
};

/** Newest first, ties by id descending: the order the API promises. */
const newestFirst = (a: EventDoc, b: EventDoc) =>
  b.createdAt.getTime() - a.createdAt.getTime() || (a._id < b._id ? 1 : a._id > b._id ? -1 : 0);

describe('GET /v1/query/events', () => {
  let app: FastifyInstance;
  let baseUrl: string;
  let acme: TestIntegrator;
  let rival: TestIntegrator;
  /** acme's seeded events, newest first (webhook.test ones included). */
  let seeded: EventDoc[];

  before(async () => {
    ({ app } = await buildTestApp());
    baseUrl = await listen(app);
    acme = await registerIntegrator(app, baseUrl, 'acme');
    rival = await registerIntegrator(app, baseUrl, 'rival');
    // Groups of three share one createdAt, so page boundaries fall inside ties.
    seeded = Array.from({ length: 60 }, (_, i) =>
      seedDoc(
        {
          integratorId: acme.integratorId,
          createdAt: new Date(T0 + Math.floor(i / 3) * 1000),
          accountId: ids.account[i % 2],
          userId: i % 3 === 0 ? ids.user[0] : i % 3 === 1 ? ids.user[1] : null,
          transactionId: i % 5 === 0 ? ids.tx[0] : null,
          eventType: i % 10 === 9 ? 'webhook.test' : undefined,
        },
        i,
      ),
    ).sort(newestFirst);
    // The rival shares every routing id and instant: only the integrator scope keeps them apart.
    const mirrored = seeded.map((d, i) => seedDoc({ ...d, integratorId: rival.integratorId }, i));
    await app.store.events.insertMany([...seeded, ...mirrored]);
  });
  after(async () => closeTestApp(app));

  const page = (client: TestIntegrator, filters: EventFilters & { cursor?: string }) =>
    client.client.listEventsPage(filters);
  const all = async (client: TestIntegrator, filters: EventFilters) => {
    const out: EventHistoryItem[] = [];
    for await (const e of client.client.listEvents(filters)) out.push(e);
    return out;
  };
  const lifecycle = () => seeded.filter((d) => d.eventType !== 'webhook.test');
  const idsOf = (xs: Array<{ id: string } | EventDoc>) => xs.map((x) => ('id' in x ? x.id : x._id));

  it('answers §2.2 with §2.1 items in order: stored body fields then createdAt, ISO UTC dates', async () => {
    const res = await page(acme, { limit: 5 });
    listEventsResponse.parse(res);
    assert.deepEqual(Object.keys(res), ['events', 'nextCursor']);
    const first = res.events[0]!;
    const doc = lifecycle()[0]!;
    assert.deepEqual(Object.keys(first), [...Object.keys(JSON.parse(doc.body)), 'createdAt']);
    assert.deepEqual(first, { ...JSON.parse(doc.body), createdAt: doc.createdAt.toISOString() });
    assert.match(first.occurredAt, /Z$/);
  });

  it('lists newest first, ties by id, webhook.test excluded unless asked for', async () => {
    assert.deepEqual(idsOf(await all(acme, { limit: 7 })), idsOf(lifecycle()));
    const tests = await all(acme, { eventType: 'webhook.test' });
    assert.deepEqual(idsOf(tests), idsOf(seeded.filter((d) => d.eventType === 'webhook.test')));
    assert.equal(tests.length, 6);
  });

  it('applies every filter, alone and combined (AND)', async () => {
    const cases: Array<[EventFilters, (d: EventDoc) => boolean]> = [
      [{ accountId: ids.account[0] }, (d) => d.accountId === ids.account[0]],
      [{ userId: ids.user[1] }, (d) => d.userId === ids.user[1]],
      [{ transactionId: ids.tx[0] }, (d) => d.transactionId === ids.tx[0]],
      [{ eventType: 'customer.created' }, (d) => d.eventType === 'customer.created'],
      [{ createdAfter: new Date(T0 + 15_000) }, (d) => d.createdAt.getTime() > T0 + 15_000],
      [{ createdBefore: new Date(T0 + 4_000) }, (d) => d.createdAt.getTime() < T0 + 4_000],
      [
        { accountId: ids.account[1], userId: ids.user[0], createdAfter: new Date(T0 + 2_000) },
        (d) => d.accountId === ids.account[1] && d.userId === ids.user[0] && d.createdAt.getTime() > T0 + 2_000,
      ],
      [{ accountId: ids.account[0].toUpperCase() }, (d) => d.accountId === ids.account[0]],
    ];
    for (const [filters, match] of cases) {
      const expected = seeded.filter(
        (d) => match(d) && (filters.eventType === undefined ? d.eventType !== 'webhook.test' : true),
      );
      const got = await all(acme, { ...filters, limit: 4 });
      assert.deepEqual(idsOf(got), idsOf(expected), JSON.stringify(filters));
      assert.ok(expected.length > 0 && expected.length < seeded.length, `a selective case: ${JSON.stringify(filters)}`);
    }
    assert.deepEqual(await all(acme, { accountId: randomUUID() }), []);
  });

  it('treats createdAfter and createdBefore as exclusive, at the exact boundary instant', async () => {
    const at = new Date(T0 + 7_000); // three events share this createdAt
    const onBoundary = seeded.filter((d) => d.createdAt.getTime() === at.getTime()).map((d) => d._id);
    assert.equal(onBoundary.length, 3);
    const afterIds = idsOf(await all(acme, { createdAfter: at, eventType: undefined }));
    const beforeIds = idsOf(await all(acme, { createdBefore: at }));
    for (const id of onBoundary) assert.ok(!afterIds.includes(id) && !beforeIds.includes(id));
    assert.ok(afterIds.length > 0 && beforeIds.length > 0);
    // One millisecond off the boundary includes them.
    const justBefore = idsOf(await all(acme, { createdAfter: new Date(at.getTime() - 1), createdBefore: at }));
    assert.deepEqual(justBefore, []);
    const window = idsOf(
      await all(acme, { createdAfter: new Date(at.getTime() - 1), createdBefore: new Date(at.getTime() + 1) }),
    );
    assert.deepEqual(
      window.sort(),
      lifecycle()
        .filter((d) => onBoundary.includes(d._id))
        .map((d) => d._id)
        .sort(),
    );
    // Offsets are instants: +01:00 is the same boundary.
    const offset = await all(acme, { createdAfter: '2026-01-01T01:00:07+01:00' });
    assert.deepEqual(idsOf(offset), afterIds);
  });

  it('pages with limit: default 100, max 250, nextCursor null on the last page (also on an exact fit)', async () => {
    const n = lifecycle().length; // 54
    const full = await page(acme, {});
    assert.equal(full.events.length, n);
    assert.equal(full.nextCursor, null);
    const exact = await page(acme, { limit: n });
    assert.equal(exact.events.length, n);
    assert.equal(exact.nextCursor, null, 'no empty last page');
    const short = await page(acme, { limit: n - 1 });
    assert.ok(short.nextCursor);
    const rest = await page(acme, { limit: 250, cursor: short.nextCursor });
    assert.deepEqual(idsOf(rest.events), [idsOf(lifecycle()).at(-1)]);
    assert.equal(rest.nextCursor, null);
    // The limit may change between pages; the filters may not.
    const p1 = await page(acme, { limit: 10 });
    const p2 = await page(acme, { limit: 3, cursor: p1.nextCursor! });
    assert.deepEqual(idsOf(p2.events), idsOf(lifecycle().slice(10, 13)));
  });

  it('refuses a cursor used with other filters, by another integrator, forged or malformed', async () => {
    const first = await page(acme, { accountId: ids.account[0], limit: 2 });
    const cursor = first.nextCursor!;
    assert.ok(cursor);
    const bad = async (client: TestIntegrator, filters: EventFilters & { cursor: string }, why: RegExp) => {
      await assert.rejects(page(client, filters), (e: unknown) => {
        assert.ok(e instanceof HeraldApiError, String(e));
        assert.equal(e.status, 400);
        assert.equal(e.body?.error, 'invalid_cursor');
        assert.match(e.body?.message ?? '', why);
        return true;
      });
    };
    const changed = /^cursor: the filters changed/;
    await bad(acme, { cursor }, changed);
    await bad(acme, { cursor, accountId: ids.account[1] }, changed);
    await bad(acme, { cursor, accountId: ids.account[0], eventType: 'customer.created' }, changed);
    await bad(acme, { cursor, accountId: ids.account[0], createdBefore: new Date() }, changed);
    await bad(rival, { cursor, accountId: ids.account[0] }, changed);
    const [payload, mac] = cursor.split('.') as [string, string];
    const flipped = (s: string, i: number) => s.slice(0, i) + (s[i] === 'A' ? 'B' : 'A') + s.slice(i + 1);
    await bad(acme, { cursor: `${flipped(payload, 3)}.${mac}`, accountId: ids.account[0] }, /not issued/);
    await bad(acme, { cursor: `${payload}.${flipped(mac, 0)}`, accountId: ids.account[0] }, /not issued/);
    for (const junk of ['abc', 'a.b.c', `${payload}.`, `.${mac}`, '%%%.%%%', `${payload}.${mac}.x`]) {
      await bad(acme, { cursor: junk, accountId: ids.account[0] }, /^cursor: (malformed|not issued)/);
    }
    const other = app.cursors.encode('deliveries', { createdAt: new Date(), id: randomUUID() }, {});
    await bad(acme, { cursor: other }, /another listing/);
    // The same cursor with the same filters (dates in any notation) still works.
    const again = await page(acme, { cursor, accountId: ids.account[0].toUpperCase(), limit: 2 });
    assert.equal(again.events.length, 2);
  });

  it('compares a bound finer than the millisecond exactly: the events of that millisecond are not left out', async () => {
    const at = T0 + 7_000; // three events share this createdAt
    const onBoundary = lifecycle()
      .filter((d) => d.createdAt.getTime() === at)
      .map((d) => d._id)
      .sort();
    assert.ok(onBoundary.length > 0);
    /** The instant `ms` written with `finer` digits after its milliseconds. */
    const iso = (ms: number, finer: string) => new Date(ms).toISOString().replace('Z', `${finer}Z`);
    const listed = async (filters: EventFilters) => idsOf(await all(acme, { ...filters, limit: 1 })).sort();
    for (const finer of ['1', '5', '000001', '999999']) {
      // 07.000 < 07.000…1: listed before such a bound, and after 06.999…
      assert.deepEqual(await listed({ createdAfter: new Date(at - 1), createdBefore: iso(at, finer) }), onBoundary);
      assert.deepEqual(await listed({ createdAfter: iso(at - 1, finer), createdBefore: new Date(at + 1) }), onBoundary);
      // …and not after 07.000…1.
      assert.deepEqual(await listed({ createdAfter: iso(at, finer), createdBefore: new Date(at + 1) }), [], finer);
    }
    // Zeros past the millisecond are the millisecond itself: still exclusive.
    assert.deepEqual(await listed({ createdAfter: new Date(at - 1), createdBefore: iso(at, '000') }), []);
    // An offset changes nothing.
    const offset = { createdAfter: new Date(at - 1), createdBefore: '2026-01-01T01:00:07.0005+01:00' };
    assert.deepEqual(await listed(offset), onBoundary);
  });

  it('answers 400 naming the parameter for every invalid, repeated or unknown parameter', async () => {
    const cases: Array<[string, RegExp]> = [
      ['accountId=nope', /^querystring\.accountId: /],
      ['userId=123', /^querystring\.userId: /],
      ['transactionId=', /^querystring\.transactionId: /],
      ['eventType=customer.exploded', /^querystring\.eventType: /],
      ['eventType=customer.awaiting_information', /^querystring\.eventType: /],
      ['createdAfter=yesterday', /^querystring\.createdAfter: /],
      ['createdBefore=2026-01-01', /^querystring\.createdBefore: /],
      ['createdBefore=2026-01-01T00:00:00', /^querystring\.createdBefore: /],
      ['cursor=', /^querystring\.cursor: /],
      ...['0', '251', '1.5', 'abc', '-1', '', '1e2', ' 5', '0x10'].map((v): [string, RegExp] => [
        `limit=${encodeURIComponent(v)}`,
        /^querystring\.limit: must be an integer from 1 to 250$/,
      ]),
      ...['accountId', 'userId', 'transactionId', 'createdAfter', 'createdBefore'].map((p): [string, RegExp] => {
        const v = p.startsWith('created') ? '2026-01-01T00:00:00Z' : randomUUID();
        return [`${p}=${v}&${p}=${v}`, new RegExp(`^querystring\\.${p}: must be given at most once$`)];
      }),
      ['eventType=customer.created&eventType=customer.created', /^querystring\.eventType: must be given at most once$/],
      ['limit=5&limit=6', /^querystring\.limit: must be given at most once$/],
      ['cursor=a.b&cursor=a.b', /^querystring\.cursor: must be given at most once$/],
      ['foo=1', /^querystring: Unrecognized key: "foo"$/],
      ['limit=5&Limit=5', /^querystring: Unrecognized key: "Limit"$/],
      ['offset=10', /^querystring: Unrecognized key: "offset"$/],
    ];
    for (const [query, message] of cases) {
      await assert.rejects(acme.client.request('GET', `/v1/query/events?${query}`), (e: unknown) => {
        assert.ok(e instanceof HeraldApiError, query);
        assert.equal(e.status, 400, query);
        assert.equal(e.body?.status, 400, query);
        assert.equal(e.body?.error, 'invalid_request', query);
        assert.match(e.body?.message ?? '', message, query);
        return true;
      });
    }
  });

  it('requires a signed request', async () => {
    const res = await fetch(`${baseUrl}/v1/query/events`);
    assert.equal(res.status, 401);
    assert.deepEqual(await res.json(), { error: 'unauthorized', status: 401 });
  });

  it('keeps tenants apart: another integrator’s events never appear, whatever the filters', async () => {
    const mine = new Set(idsOf(await all(acme, { limit: 250 })));
    const theirs = await all(rival, { limit: 250 });
    assert.equal(theirs.length, lifecycle().length);
    for (const e of theirs) {
      assert.equal(e.integratorId, rival.integratorId);
      assert.ok(!mine.has(e.id));
    }
    for (const filters of [
      { accountId: ids.account[0] },
      { transactionId: ids.tx[0] },
      { eventType: 'webhook.test' as const },
      { createdAfter: new Date(T0 - 1) },
    ]) {
      for (const e of await all(rival, filters)) assert.equal(e.integratorId, rival.integratorId);
    }
    // An event published for acme through the API is visible to acme only.
    const published = sampleEvent(acme.integratorId, { accountId: ids.account[0] });
    assert.equal((await postEvent(app, published)).statusCode, 201);
    assert.equal((await page(acme, { accountId: ids.account[0], limit: 1 })).events[0]?.id, published.id);
    assert.ok(!idsOf(await all(rival, { accountId: ids.account[0] })).includes(published.id as string));
    await app.store.events.collection.deleteOne({ _id: published.id as string });
  });
});
