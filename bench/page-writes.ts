// `npm run bench -- page-writes [--ops N]`: what one listing write costs the MongoDB-wire server, by document shape
// and size (issue 13's measurement behind the page layout's write design, docs/events.md "Page documents"). Each
// case runs N single writes one after the other, each on its own document pre-filled to the given size, and prints
// the median wall time and the server's CPU per write (from /proc), then one JSON line.
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { MongoClient, type Collection, type Document } from 'mongodb';
import { pidListeningOn, sample } from './lib/proc-stats.js';
import { numberFlags, quantile, round } from './lib/stats.js';

const flags = numberFlags({ ops: 150 });
const url = process.env.MONGODB_URL ?? 'mongodb://127.0.0.1:27017/';
const pid = pidListeningOn(Number(new URL(url).port || 27017));
if (pid === undefined) throw new Error(`no local server listens on ${url}`);
const client = new MongoClient(url, { maxPoolSize: 2 });
await client.connect();
const db = client.db(`page_writes_${randomUUID().slice(0, 8)}`);

const body = JSON.stringify({ id: randomUUID(), note: 'x'.repeat(560), accountId: randomUUID() }); // ≈ 650 bytes
const fullRow = () => ({
  c: new Date(),
  i: randomUUID(),
  b: body,
  t: 'customer.created',
  a: randomUUID(),
  u: null,
  x: null,
});
const bareRow = () => ({ c: new Date(), i: randomUUID(), t: 'customer.created', a: randomUUID(), u: null, x: null });
/** The same row packed into one string value (FerretDB's cost grows with the number of values, not bytes). */
const packedRow = () => JSON.stringify(Object.values(fullRow()));

interface Case {
  name: string;
  /** Documents to write to, one per op, prepared before timing. */
  prepare(coll: Collection<Document>, ids: string[]): Promise<void>;
  op(coll: Collection<Document>, id: string): Promise<unknown>;
}

const head = (rows: () => unknown, n: number, how: '$addToSet' | '$push'): Case => ({
  name: `${how} ${rows === fullRow ? 'row with body' : rows === bareRow ? 'row without body' : 'packed row'} into a head of ${n}`,
  prepare: async (coll, ids) =>
    void (await coll.insertMany(
      ids.map((_id) => ({ _id: _id as never, e: Array.from({ length: n }, rows), pages: 0 })),
    )),
  op: (coll, id) =>
    coll.updateOne({ _id: id as never }, { [how]: { e: { $each: [rows()] } }, $setOnInsert: { pages: 0 } } as never, {
      upsert: true,
    }),
});

const cases: Case[] = [
  ...[0, 16, 32, 64, 128].map((n) => head(fullRow, n, '$addToSet')),
  ...[32, 64].map((n) => head(fullRow, n, '$push')),
  ...[0, 32, 64, 128].map((n) => head(bareRow, n, '$addToSet')),
  ...[0, 32, 64, 128].map((n) => head(packedRow, n, '$addToSet')),
  ...[64, 128].map((n) => head(packedRow, n, '$push')),
  {
    name: 'insertOne of one row document (with body)',
    prepare: async () => undefined,
    op: (coll, id) => coll.insertOne({ _id: id as never, ...fullRow() }),
  },
  {
    name: 'insertOne of one row document (without body)',
    prepare: async () => undefined,
    op: (coll, id) => coll.insertOne({ _id: id as never, ...bareRow() }),
  },
  {
    name: 'findOneAndUpdate $inc of a counter',
    prepare: async (coll, ids) => void (await coll.insertMany(ids.map((_id) => ({ _id: _id as never, n: 7 })))),
    op: (coll, id) => coll.findOneAndUpdate({ _id: id as never }, { $inc: { n: 1 } }, { returnDocument: 'after' }),
  },
  {
    name: 'findOne of a head of 64 rows with body',
    prepare: head(fullRow, 64, '$push').prepare,
    op: (coll, id) => coll.findOne({ _id: id as never }),
  },
  {
    name: 'findOne of a page of 128 packed rows',
    prepare: head(packedRow, 128, '$push').prepare,
    op: (coll, id) => coll.findOne({ _id: id as never }),
  },
  {
    name: 'findOne of a page of 128 rows as one string',
    prepare: async (coll, ids) =>
      void (await coll.insertMany(
        ids.map((_id) => ({ _id: _id as never, e: Array.from({ length: 128 }, packedRow).join('\n') })),
      )),
    op: (coll, id) => coll.findOne({ _id: id as never }),
  },
  {
    name: 'findOne of a small document',
    prepare: async (coll, ids) => void (await coll.insertMany(ids.map((_id) => ({ _id: _id as never, ...bareRow() })))),
    op: (coll, id) => coll.findOne({ _id: id as never }),
  },
];

const results: Record<string, { wallMs: number; cpuMs: number }> = {};
// A background of other documents, as a busy collection has.
const background = db.collection('background');
for (let k = 0; k < 10; k++) await background.insertMany(Array.from({ length: 500 }, bareRow));
for (const [n, c] of cases.entries()) {
  const coll = db.collection(`case_${n}`);
  await coll.insertOne({ _id: 'warm' as never }); // the table exists (and gets its `_id` index) before timing
  await new Promise((r) => setTimeout(r, 400));
  const ids = Array.from({ length: flags.ops }, () => randomUUID());
  await c.prepare(coll, ids);
  const walls: number[] = [];
  const cpu0 = sample(pid)!.cpuSeconds;
  for (const id of ids) {
    const t = performance.now();
    await c.op(coll, id);
    walls.push(performance.now() - t);
  }
  const cpuMs = ((sample(pid)!.cpuSeconds - cpu0) * 1000) / flags.ops;
  results[c.name] = { wallMs: round(quantile(walls, 0.5), 2), cpuMs: round(cpuMs, 2) };
  console.log(`${c.name.padEnd(52)} p50 ${results[c.name]!.wallMs} ms, server CPU ${results[c.name]!.cpuMs} ms`);
}
await db.dropDatabase();
await client.close();
console.log(JSON.stringify({ ops: flags.ops, results }));
