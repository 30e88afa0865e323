// The key's reader (src/store/pages/reader.ts) asked for rows in many calls, as the deliveries listing does when
// it filters what it reads: the calls together give exactly the rows one call for all of them gives, and the plain
// reference (every filed row, filtered, newest first), from anywhere in the key — rows spread over sealed pages, the
// head and the journal, filed out of order, with ties — on the real MongoDB-wire server.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import {
  cmp,
  fileRows,
  journalRows,
  keyReader,
  pageCollections,
  posOf,
  readKey,
  type PageCollections,
  type RowBase,
} from '../../src/store/pages/index.js';
import { createMongo } from '../../src/store/mongo.js';
import { testConfig } from '../helpers/env.js';

const T0 = Date.UTC(2026, 3, 1);
const ROWS = 90;

describe('keyReader: rows in many calls', () => {
  const mongo = createMongo(testConfig());
  const key = `${randomUUID()}|test|`;
  let c: PageCollections;
  let rows: RowBase[];

  before(async () => {
    await mongo.client.connect();
    c = pageCollections(mongo.db, { pageRows: 8, sealAt: 4, sealEvery: 4 });
    // Positions with ties (3 per millisecond), filed in a shuffled order, one at a time as the hot path files them.
    rows = Array.from({ length: ROWS }, (_, n) => ({ c: new Date(T0 + Math.floor(n / 3)), i: `r${1000 + n}` }));
    const order = [...rows].sort(
      (a, b) => (a.i.charCodeAt(3) % 7) - (b.i.charCodeAt(3) % 7) || cmp(posOf(a), posOf(b)),
    );
    for (const row of order.slice(0, -6)) await fileRows(c, [{ key, row }]);
    // The last six stay in the journal (never due to move with these sizes).
    const journalOnly = pageCollections(mongo.db, { ...c.sizes, journalAt: 1000, journalEvery: 1000 });
    for (const row of order.slice(-6)) await fileRows(journalOnly, [{ key, row }]);
  });
  after(async () => mongo.client.close());

  const kept = (r: RowBase) => Number(r.i.slice(1)) % 4 !== 0;
  const reference = (bound?: RowBase) =>
    rows
      .filter((r) => kept(r) && (!bound || cmp(posOf(r), posOf(bound)) < 0))
      .sort((a, b) => cmp(posOf(b), posOf(a)))
      .map((r) => r.i);

  async function inCalls(size: number, bound?: RowBase): Promise<string[]> {
    const reader = keyReader<RowBase>(c, key, { keep: kept, ...(bound ? { bound: posOf(bound) } : {}) });
    const out: string[] = [];
    for (;;) {
      const got = await reader.next(size);
      assert.ok(got.length <= size, 'never more than asked');
      out.push(...got.map((r) => r.row.i));
      if (got.length < size) return out;
    }
  }

  it('the rows are spread over sealed pages and the head or journal (what the test is about)', async () => {
    const head = await c.heads.findOne({ _id: `h|${key}` });
    assert.ok((head?.pages ?? 0) >= 3, `sealed pages: ${head?.pages}`);
    const unsealed = (head?.e.length ?? 0) + (await journalRows(c, key)).length;
    assert.ok(unsealed > 0 && unsealed < ROWS, `rows in the head and journal: ${unsealed}`);
    const all = await readKey<RowBase>(c, key, { keep: () => true, limit: ROWS + 1 });
    assert.equal(all.length, ROWS);
    assert.ok(
      all.some((r) => r.row.i === rows.at(-1)!.i),
      'the newest row is listed',
    );
  });

  for (const size of [1, 3, 7, 20, 200]) {
    it(`calls of ${size} rows give the reference, from the top and from a bound`, async () => {
      assert.deepEqual(await inCalls(size), reference());
      const one = await readKey<RowBase>(c, key, { keep: kept, limit: ROWS });
      assert.deepEqual(
        one.map((r) => r.row.i),
        reference(),
      );
      for (const at of [5, 40, 77]) {
        const bound = rows[at]!;
        assert.deepEqual(await inCalls(size, bound), reference(bound), `bound ${bound.i}`);
      }
    });
  }
});
