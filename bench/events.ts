// `npm run bench -- events [--events N] [--integrators K] [--duration S] [--connections C] [--samples S]`
// Seeds N events over K integrators, then measures GET /v1/query/events (limit 100, signed, real HTTP from a second
// process) beside the raw driver running the same query on the same server, and the latency of a deep page vs page 1.
// Against a real MongoDB: MONGODB_URL=mongodb://… npm run bench -- events --events 1000000
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { MongoClient, type Db } from 'mongodb';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import type { HeraldClient } from '../src/client/herald-client.js';
import { newestFirst, type Position } from '../src/store/cursor.js';
import { listFilter, listProjection } from '../src/store/events-query.js';
import type { EventDoc } from '../src/store/documents.js';
import { listen, registerIntegrator } from '../test/helpers/integrators.js';
import { seedCreatedAt, seedEvents } from './lib/events-seed.js';
import type { LoadResult, LoadSpec } from './lib/events-load.js';

const { values } = parseArgs({
  options: {
    events: { type: 'string', default: '6000' },
    integrators: { type: 'string', default: '4' },
    duration: { type: 'string', default: '10' },
    connections: { type: 'string', default: '8' },
    samples: { type: 'string', default: '15' },
  },
});
const N = Number(values.events);
const K = Number(values.integrators);
const DURATION = Number(values.duration);
const CONNECTIONS = Number(values.connections);
const SAMPLES = Number(values.samples);
const LIMIT = 100;
const FAR_FUTURE = Date.UTC(2100, 0, 1);
const BASE = Date.UTC(2025, 0, 1);

const p = (xs: number[], q: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))]!;
const round = (x: number, d = 1) => Math.round(x * 10 ** d) / 10 ** d;

/** The raw driver: the same filter, projection, sort and limit the route uses, with CONNECTIONS in flight. */
async function driverRps(db: Db, integratorIds: string[]): Promise<number> {
  const events = db.collection<EventDoc>('events');
  let n = 0;
  const end = Date.now() + DURATION * 1000;
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      while (Date.now() < end) {
        const i = n++;
        const filter = listFilter(integratorIds[i % integratorIds.length]!, {
          createdBefore: new Date(FAR_FUTURE + i),
        });
        await events
          .find(filter, { projection: listProjection })
          .sort(newestFirst)
          .limit(LIMIT + 1)
          .toArray();
      }
    }),
  );
  return n / DURATION;
}

async function apiLoad(spec: LoadSpec): Promise<LoadResult> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'bench/lib/events-load.ts'], {
    env: { ...process.env, HERALD_BENCH_LOAD: JSON.stringify(spec) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  const code = await new Promise<number>((r) => child.on('exit', (c) => r(c ?? 1)));
  if (code !== 0) throw new Error(`load generator exited with ${code}`);
  return JSON.parse(out.trim().split('\n').at(-1)!) as LoadResult;
}

/** Sequential signed requests for one page; each has its own createdBefore so no two messages repeat. */
async function pageLatency(client: HeraldClient, cursorFor: (before: Date) => string | undefined): Promise<number> {
  const ms: number[] = [];
  for (let i = 0; i < SAMPLES; i++) {
    const before = new Date(FAR_FUTURE + 10_000_000 + Math.floor(Math.random() * 1e9));
    const cursor = cursorFor(before);
    const t = performance.now();
    const page = await client.listEventsPage({ limit: LIMIT, createdBefore: before, cursor });
    ms.push(performance.now() - t);
    if (page.events.length === 0) throw new Error('empty page: the benchmark would measure nothing');
  }
  return p(ms, 0.5);
}

async function main(): Promise<void> {
  const config = loadConfig({
    ...process.env,
    MONGODB_DB: `bench_events_${randomBytes(4).toString('hex')}`,
    HERALD_ADMIN_TOKEN: 'test-admin-token-0123456789',
    HERALD_MASTER_KEY: randomBytes(32).toString('base64'),
    LOG_LEVEL: 'warn',
  });
  const app = await buildApp({ config, logger: false });
  const mongo = await MongoClient.connect(config.MONGODB_URL);
  try {
    const url = await listen(app);
    const integrators = [];
    for (let k = 0; k < K; k++) integrators.push(await registerIntegrator(app, url, `bench-${k}`));
    const ids = integrators.map((i) => i.integratorId);
    const t = performance.now();
    await seedEvents(app.store.events, { integratorIds: ids, count: N, base: BASE, batch: 5000 });
    console.log(`seeded ${N} events over ${K} integrators in ${round((performance.now() - t) / 1000)} s`);

    const db = mongo.db(config.MONGODB_DB);
    const driver = await driverRps(db, ids);
    const keys = integrators.map((i) => ({
      pem: i.privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(),
      pubkey: i.pubkey,
    }));
    const load = { url, keys, connections: CONNECTIONS, durationSec: DURATION, farFutureMs: FAR_FUTURE, limit: LIMIT };
    const api = await apiLoad(load);
    if (api.non2xx > 0 || api.errors > 0) throw new Error(`API answered ${api.non2xx} non-2xx, ${api.errors} errors`);

    // Deep page: 90 % of the way through integrator 0's history (its events are i = 0, K, 2K, …).
    const own = Math.ceil(N / K);
    const depth = Math.floor(own * 0.9);
    const createdAt = seedCreatedAt(BASE, (own - 1 - depth) * K);
    const at = await db.collection<EventDoc>('events').findOne({ integratorId: ids[0], createdAt });
    if (!at) throw new Error('deep position not found');
    const position: Position = { createdAt, id: at._id };
    const client = integrators[0]!.client;
    const first = await pageLatency(client, () => undefined);
    const deep = await pageLatency(client, (before) =>
      app.cursors.encode('events', position, { integratorId: ids[0], createdBefore: before }),
    );

    const figures = {
      bench: 'events',
      events: N,
      integrators: K,
      limit: LIMIT,
      connections: CONNECTIONS,
      durationSec: DURATION,
      apiRps: round(api.rps),
      driverRps: round(driver),
      ratio: round(api.rps / driver, 3),
      apiP50Ms: api.p50Ms,
      apiP99Ms: api.p99Ms,
      page1P50Ms: round(first, 2),
      deepPageP50Ms: round(deep, 2),
      deepPageDepth: depth,
      deepVsPage1: round(deep / first, 2),
    };
    console.log(`listing, limit ${LIMIT}, ${CONNECTIONS} in flight, ${DURATION} s each:`);
    console.log(
      `  API (signed HTTP, 2nd process)  ${figures.apiRps} req/s  (p50 ${api.p50Ms} ms, p99 ${api.p99Ms} ms)`,
    );
    console.log(`  raw driver, same query          ${figures.driverRps} req/s`);
    console.log(
      `  ratio API / driver              ${figures.ratio}  (goal ≥ 0.7: ${figures.ratio >= 0.7 ? 'met' : 'NOT met'})`,
    );
    console.log(`latency p50: page 1 ${figures.page1P50Ms} ms, page at depth ${depth} ${figures.deepPageP50Ms} ms`);
    console.log(`  deep / page 1                   ${figures.deepVsPage1}`);
    console.log(JSON.stringify(figures));
  } finally {
    await mongo
      .db(config.MONGODB_DB)
      .dropDatabase()
      .catch(() => undefined);
    await mongo.close();
    await app.close();
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
