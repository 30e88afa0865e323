// `npm run bench -- events [--events N] [--integrators K] [--duration S] [--connections C] [--samples S] [--depth P]`
// (or HERALD_BENCH_EVENTS=N). Seeds N events and N deliveries of one integrator beside N of each other one (K in
// all), through the repositories' bulk paths (insertMany of prepared documents, then their page documents), then
// for every filter of GET /v1/query/events and GET /v1/webhooks/deliveries (limit 100, signed, real HTTP): the p50
// of page 1 and of page P (default 500) one request at a time, and pages/s with C in flight from a second process
// (half page 1, half page P) beside the repository's own reads (the raw driver, no HTTP) doing the same, and their
// ratio. Prints how long seeding took, then one JSON line with the goals (≤ 100 ms, ≤ 100 ms, ≥ 50 pages/s).
// Against a real MongoDB (the indexes layout): MONGODB_URL=mongodb://… npm run bench -- events
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../src/process/app.js';
import { loadConfig } from '../src/config.js';
import { keysetPage, type Position } from '../src/store/cursor.js';
import { listen, registerIntegrator, type TestIntegrator } from '../test/helpers/integrators.js';
import { seedDeliveries } from './lib/deliveries-seed.js';
import { seedEvents } from './lib/events-seed.js';
import { signedGet, uniquePath } from './lib/listing-paths.js';
import type { LoadResult, LoadSpec } from './lib/events-load.js';
import { numberFlags, quantile, round } from './lib/stats.js';

const flags = numberFlags({
  events: Number(process.env.HERALD_BENCH_EVENTS ?? 100_000),
  integrators: 2,
  duration: 5,
  connections: 8,
  samples: 15,
  depth: 500,
  batch: 5000,
});
const LIMIT = 100;
const BASE = Date.UTC(2025, 0, 1);
let unique = 0;

type Listing = 'events' | 'deliveries';
type Filters = Record<string, string | Date>;
interface Case {
  listing: Listing;
  name: string;
  filters: Filters;
}
const PATHS: Record<Listing, string> = { events: '/v1/query/events', deliveries: '/v1/webhooks/deliveries' };

interface Figures {
  listing: Listing;
  filter: string;
  page1P50Ms: number;
  deepPage: number;
  deepP50Ms: number;
  apiPagesPerSec: number;
  apiP99Ms: number;
  repoPagesPerSec: number;
  ratio: number;
}

async function apiLoad(spec: LoadSpec): Promise<LoadResult> {
  const dir = mkdtempSync(join(tmpdir(), 'herald-bench-events-'));
  const file = join(dir, 'load.json');
  writeFileSync(file, JSON.stringify(spec));
  try {
    const child = spawn(process.execPath, ['--import', 'tsx', 'bench/lib/events-load.ts'], {
      env: { ...process.env, HERALD_BENCH_LOAD_FILE: file },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    const code = await new Promise<number>((r) => child.on('exit', (c) => r(c ?? 1)));
    if (code !== 0) throw new Error(`load generator exited with ${code}`);
    return JSON.parse(out.trim().split('\n').at(-1)!) as LoadResult;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A page of a listing through its repository (limit + 1 rows). */
async function listPage(
  app: FastifyInstance,
  c: Case,
  integratorId: string,
  position: Position | undefined,
): Promise<{ _id: string; createdAt: Date; page?: number }[]> {
  if (c.listing === 'events') return await app.store.events.list(integratorId, c.filters, position, LIMIT + 1);
  return await app.store.deliveries.list(integratorId, c.filters, position ?? null, LIMIT + 1);
}

/** The position after page `depth - 1` (so the next request lists page `depth`), or the last page's if shallower. */
async function positionOfPage(app: FastifyInstance, integratorId: string, c: Case, depth: number) {
  let position: Position | undefined;
  let page = 1;
  for (; page < depth; page++) {
    const { next } = keysetPage(await listPage(app, c, integratorId, position), LIMIT);
    if (!next) break;
    position = next;
  }
  return { position, page };
}

async function measure(app: FastifyInstance, url: string, who: TestIntegrator, c: Case): Promise<Figures> {
  const integratorId = who.integratorId;
  const deep = await positionOfPage(app, integratorId, c, flags.depth);
  const q = new URLSearchParams({ limit: String(LIMIT) });
  for (const [k, v] of Object.entries(c.filters)) q.set(k, v instanceof Date ? v.toISOString() : v);
  const first = `${PATHS[c.listing]}?${q.toString()}`;
  const cursor = deep.position && app.cursors.encode(c.listing, deep.position, { integratorId, ...c.filters });
  const deepPath = cursor ? `${first}&cursor=${cursor}` : first;
  // Every request under its own target (the server accepts a signed message once).
  const path = (depth: 'first' | 'deep') => uniquePath(depth === 'deep' ? deepPath : first, unique++);
  const latency = async (depth: 'first' | 'deep') => {
    const ms: number[] = [];
    for (let s = 0; s < flags.samples; s++) {
      const t = performance.now();
      const body = await signedGet(url, who, path(depth));
      ms.push(performance.now() - t);
      if ((body[c.listing] as unknown[]).length === 0) throw new Error(`${c.name}: empty page, nothing measured`);
    }
    return quantile(ms, 0.5);
  };
  const page1P50Ms = await latency('first');
  const deepP50Ms = await latency('deep');

  // Far more paths than the load can use (it stops, failing, when they run out): 2,000 per second of load.
  const paths = Array.from({ length: 2000 * flags.duration }, (_, n) => path(n % 2 ? 'deep' : 'first'));
  const key = { pem: who.privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(), pubkey: who.pubkey };
  const api = await apiLoad({ url, key, connections: flags.connections, durationSec: flags.duration, paths });
  if (api.non2xx > 0 || api.errors > 0) throw new Error(`API answered ${api.non2xx} non-2xx, ${api.errors} errors`);

  // The same reads through the repository alone (the raw driver, no HTTP, no signing, no serialisation).
  let done = 0;
  const end = Date.now() + flags.duration * 1000;
  await Promise.all(
    Array.from({ length: flags.connections }, async (_, lane) => {
      for (let n = lane; Date.now() < end; n += flags.connections) {
        await listPage(app, c, integratorId, n % 2 ? deep.position : undefined);
        done += 1;
      }
    }),
  );
  const repoPagesPerSec = done / flags.duration;
  return {
    listing: c.listing,
    filter: c.name,
    page1P50Ms: round(page1P50Ms, 1),
    deepPage: deep.page,
    deepP50Ms: round(deepP50Ms, 1),
    apiPagesPerSec: round(api.rps, 1),
    apiP99Ms: api.p99Ms,
    repoPagesPerSec: round(repoPagesPerSec, 1),
    ratio: round(api.rps / repoPagesPerSec, 2),
  };
}

async function main(): Promise<void> {
  const config = loadConfig({
    ...process.env,
    MONGODB_DB: `bench_events_${randomBytes(4).toString('hex')}`,
    HERALD_ADMIN_TOKEN: 'test-admin-token-0123456789',
    HERALD_MASTER_KEY: randomBytes(32).toString('base64'),
    LOG_LEVEL: 'warn',
    HERALD_METRICS_PORT: '0', // a free port: the default one may be another process's
    // One integrator loads the API far beyond its default request budget: the bench measures the route, not 429s.
    HERALD_RATE_LIMIT_PER_SECOND: '1000000',
    HERALD_RATE_LIMIT_BURST: '1000000',
  });
  const app = await buildApp({ config, logger: false });
  try {
    const url = await listen(app);
    const integrators: TestIntegrator[] = [];
    for (let k = 0; k < flags.integrators; k++) integrators.push(await registerIntegrator(app, url, `bench-${k}`));
    const ids = integrators.map((i) => i.integratorId);
    const layout = await app.store.events.layout();
    const total = flags.events * flags.integrators;
    const t = performance.now();
    const progress = (what: string) => (done: number) =>
      process.stderr.write(`seeded ${done} ${what} (${round((performance.now() - t) / 1000)} s)\n`);
    const heavy = await seedEvents(app.store.events, {
      integratorIds: ids,
      count: total,
      base: BASE,
      batch: flags.batch,
      onBatch: progress('events'),
    });
    const eventsSeedSec = (performance.now() - t) / 1000;
    const heavyDeliveries = await seedDeliveries(app.store.deliveries, {
      integratorIds: ids,
      count: total,
      base: BASE,
      batch: flags.batch,
      onBatch: progress('deliveries'),
    });
    const seedSec = (performance.now() - t) / 1000;
    console.log(
      `layout ${layout}: seeded ${total} events and ${total} deliveries (${flags.events} each per integrator) in ` +
        `${round(seedSec)} s (events ${round(eventsSeedSec)} s, deliveries ${round(seedSec - eventsSeedSec)} s)`,
    );

    // Integrator 0's events were created at BASE + 0, K, 2K, … ms: bounds at 20 % and 80 % of its history.
    const at = (share: number) => new Date(BASE + Math.floor(total * share));
    const h = heavy[0]!;
    const d = heavyDeliveries[0]!;
    const cases: Case[] = [
      { listing: 'events', name: 'none', filters: {} },
      { listing: 'events', name: 'accountId', filters: { accountId: h.accountId } },
      { listing: 'events', name: 'userId', filters: { userId: h.userId } },
      { listing: 'events', name: 'transactionId', filters: { transactionId: h.transactionId } },
      { listing: 'events', name: 'eventType', filters: { eventType: h.eventType } },
      { listing: 'events', name: 'createdAfter', filters: { createdAfter: at(0.2) } },
      { listing: 'events', name: 'createdBefore', filters: { createdBefore: at(0.8) } },
      { listing: 'deliveries', name: 'none', filters: {} },
      { listing: 'deliveries', name: 'subscriptionId', filters: { subscriptionId: d.subscriptionId } },
      { listing: 'deliveries', name: 'eventId', filters: { eventId: d.eventId } },
      ...(['succeeded', 'pending', 'failed', 'cancelled'] as const).map((status) => ({
        listing: 'deliveries' as const,
        name: `status=${status}`,
        filters: { status },
      })),
      {
        listing: 'deliveries',
        name: 'subscriptionId+status=failed',
        filters: { subscriptionId: d.subscriptionId, status: 'failed' },
      },
    ];
    const rows: Figures[] = [];
    console.log(`limit ${LIMIT}; pages/s with ${flags.connections} in flight for ${flags.duration} s`);
    console.log(
      'listing    filter                        page 1 p50  page N p50 (N)      API pages/s (p99)   repository pages/s  ratio',
    );
    for (const c of cases) {
      const f = await measure(app, url, integrators[0]!, c);
      rows.push(f);
      console.log(
        `${f.listing.padEnd(10)} ${f.filter.padEnd(29)} ${`${f.page1P50Ms} ms`.padEnd(11)} ${`${f.deepP50Ms} ms (${f.deepPage})`.padEnd(19)} ` +
          `${`${f.apiPagesPerSec} (${f.apiP99Ms} ms)`.padEnd(19)} ${String(f.repoPagesPerSec).padEnd(19)} ${f.ratio}`,
      );
    }
    const worst = {
      page1P50Ms: Math.max(...rows.map((r) => r.page1P50Ms)),
      deepP50Ms: Math.max(...rows.map((r) => r.deepP50Ms)),
      apiPagesPerSec: Math.min(...rows.map((r) => r.apiPagesPerSec)),
    };
    const met = worst.page1P50Ms <= 100 && worst.deepP50Ms <= 100 && worst.apiPagesPerSec >= 50;
    console.log(
      `worst: page 1 ${worst.page1P50Ms} ms, page ${flags.depth} ${worst.deepP50Ms} ms, ${worst.apiPagesPerSec} ` +
        `pages/s (goal ≤ 100 ms, ≤ 100 ms, ≥ 50: ${met ? 'met' : 'NOT met'})`,
    );
    console.log(
      JSON.stringify({
        bench: 'events',
        layout,
        eventsPerIntegrator: flags.events,
        deliveriesPerIntegrator: flags.events,
        integrators: flags.integrators,
        seedSec: round(seedSec),
        goals: { page1P50Ms: 100, deepP50Ms: 100, apiPagesPerSec: 50 },
        limit: LIMIT,
        connections: flags.connections,
        durationSec: flags.duration,
        rows,
        worst,
        met,
      }),
    );
  } finally {
    await app.mongo.db.dropDatabase().catch(() => undefined);
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
