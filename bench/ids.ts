// `npm run bench -- ids [--sizes 1000,10000,100000] [--ops 15] [--unindexedMax 20000]`
// findOne and updateOne by `_id` on one collection of delivery-shaped documents as it grows, on the embedded
// MongoDB-wire server: the bench bed's server (with the launcher's `_id` index) and, for comparison, a second one
// started with `-id-index=false` (FerretDB alone: a table scan per operation), up to --unindexedMax documents.
// Prints medians of --ops operations and each size's ratio against the 1,000-document figure of the same run.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { MongoClient, type Collection } from 'mongodb';
import { freePort } from '../scripts/lib/processes.js';
import { startMongoWire } from '../scripts/lib/servers.js';
import { numberFlags, quantile, round } from './lib/stats.js';

const flags = numberFlags({ ops: 15, unindexedMax: 20_000 });
const sizesArg = process.argv.indexOf('--sizes');
const sizes = (sizesArg > 0 ? (process.argv[sizesArg + 1] ?? '') : '1000,10000,100000').split(',').map(Number);

interface Doc {
  _id: string;
  eventId: string;
  subscriptionId: string;
  status: string;
  attempts: number;
  nextAttemptAt: Date;
  lastError: string | null;
  body: string;
}

const doc = (i: number): Doc => ({
  _id: `dlv_${String(i).padStart(8, '0')}_${randomBytes(6).toString('hex')}`,
  eventId: randomBytes(16).toString('hex'),
  subscriptionId: randomBytes(16).toString('hex'),
  status: 'pending',
  attempts: 0,
  nextAttemptAt: new Date(),
  lastError: null,
  body: randomBytes(160).toString('base64'),
});

async function median(ops: number, op: (i: number) => Promise<unknown>): Promise<number> {
  const ms: number[] = [];
  for (let i = 0; i < ops; i++) {
    const t = performance.now();
    await op(i);
    ms.push(performance.now() - t);
  }
  return quantile(ms, 0.5);
}

type Row = { documents: number; findOneMs: number; updateOneMs: number };

async function measure(url: string, label: string, upTo: number): Promise<Row[]> {
  const client = await MongoClient.connect(url, { maxPoolSize: 2 });
  const db = client.db(`bench_ids_${randomBytes(4).toString('hex')}`);
  const col: Collection<Doc> = db.collection<Doc>('deliveries');
  const ids: string[] = [];
  const rows: Row[] = [];
  try {
    for (const size of sizes.filter((s) => s <= upTo)) {
      while (ids.length < size) {
        const batch = Array.from({ length: Math.min(1000, size - ids.length) }, (_, k) => doc(ids.length + k));
        await col.insertMany(batch, { ordered: false });
        ids.push(...batch.map((d) => d._id));
      }
      const pick = (i: number): string => ids[(i * 7919 + size) % ids.length] ?? '';
      await col.findOne({ _id: pick(-1) }); // warm
      const findOneMs = await median(flags.ops, (i) => col.findOne({ _id: pick(i) }));
      const updateOneMs = await median(flags.ops, (i) =>
        col.updateOne(
          { _id: pick(i + 1000) },
          { $set: { status: 'retrying', lastError: 'HTTP 503' }, $inc: { attempts: 1 } },
        ),
      );
      const base = rows[0] ?? { findOneMs, updateOneMs };
      rows.push({ documents: size, findOneMs: round(findOneMs, 2), updateOneMs: round(updateOneMs, 2) });
      console.log(
        `${label} ${String(size).padStart(7)} documents: findOne ${round(findOneMs, 2)} ms (×${round(findOneMs / base.findOneMs, 2)}), ` +
          `updateOne ${round(updateOneMs, 2)} ms (×${round(updateOneMs / base.updateOneMs, 2)})`,
      );
    }
  } finally {
    await db.dropDatabase();
    await client.close();
  }
  return rows;
}

const indexed = await measure(
  process.env.MONGODB_URL ?? 'mongodb://127.0.0.1:27017/',
  'with the _id index:   ',
  Infinity,
);
let unindexed: Row[] = [];
if (flags.unindexedMax > 0) {
  const dir = mkdtempSync(join(tmpdir(), 'herald-bench-ids-'));
  const port = await freePort();
  const server = await startMongoWire({ port, dataDir: dir, args: ['-id-index=false'], log: join(dir, 'log') });
  try {
    unindexed = await measure(`mongodb://127.0.0.1:${port}/`, 'FerretDB alone (scan):', flags.unindexedMax);
  } finally {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
const first = indexed[0];
const last = indexed[indexed.length - 1];
const figures = {
  indexed,
  unindexed,
  findOneRatio: first && last ? round(last.findOneMs / first.findOneMs, 2) : null,
  updateOneRatio: first && last ? round(last.updateOneMs / first.updateOneMs, 2) : null,
};
console.log(
  `with the index, ${last?.documents} vs ${first?.documents} documents: findOne ×${figures.findOneRatio}, updateOne ×${figures.updateOneRatio} (goal ≤ 2)`,
);
console.log(JSON.stringify(figures));
