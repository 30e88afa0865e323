// `npm run bench -- events [--events N] [--integrators K] [--duration S] [--connections C] [--samples S] [--depth P]`
// Seeds N events of one integrator beside N of each other one (K in all), through the repository's bulk path, then
// for every filter of GET /v1/query/events (limit 100, signed, real HTTP): the p50 of page 1 and of page P
// (default 500) one request at a time, and pages/s with C in flight from a second process (half page 1, half page
// P) beside the repository's own reads (the raw driver, no HTTP) doing the same, and their ratio.
// Against a real MongoDB (the indexes layout): MONGODB_URL=mongodb://… npm run bench -- events
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { keysetPage, type Position } from '../src/store/cursor.js';
import type { EventListFilters } from '../src/store/events-query.js';
import { listen, registerIntegrator, type TestIntegrator } from '../test/helpers/integrators.js';
import { seedEvents } from './lib/events-seed.js';
import type { LoadResult, LoadSpec } from './lib/events-load.js';
import { numberFlags, quantile, round } from './lib/stats.js';

const flags = numberFlags({ events: 100_000, integrators: 2, duration: 5, connections: 8, samples: 15, depth: 500 });
const LIMIT = 100;
const BASE = Date.UTC(2025, 0, 1);
let unique = 0;
/** A far-past createdAfter bound, different for every request (the server accepts a signed message once). */
const farPast = () => new Date(BASE - 1 - unique++);

interface Case {
  name: string;
  filters: EventListFilters;
}

interface Figures {
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

/** The position after page `depth - 1` (so the next request lists page `depth`), or the last page's if shallower. */
async function positionOfPage(app: FastifyInstance, integratorId: string, f: EventListFilters, depth: number) {
  let position: Position | undefined;
  let page = 1;
  for (; page < depth; page++) {
    const { next } = keysetPage(await app.store.events.list(integratorId, f, position, LIMIT + 1), LIMIT);
    if (!next) break;
    position = next;
  }
  return { position, page };
}

async function measure(app: FastifyInstance, url: string, who: TestIntegrator, c: Case): Promise<Figures> {
  const integratorId = who.integratorId;
  const deep = await positionOfPage(app, integratorId, c.filters, flags.depth);
  // Every request has its own far-past bound (unless the filter is createdAfter itself, then its own bound moves
  // by a millisecond or so), and a cursor issued for exactly those filters.
  const request = (depth: 'first' | 'deep') => {
    const filters = {
      ...c.filters,
      createdAfter: new Date((c.filters.createdAfter ?? farPast()).getTime() - unique++),
    };
    const position = depth === 'deep' ? deep.position : undefined;
    const cursor = position && app.cursors.encode('events', position, { integratorId, ...filters });
    return { filters, cursor };
  };
  const toPath = ({ filters, cursor }: ReturnType<typeof request>) => {
    const q = new URLSearchParams({ limit: String(LIMIT) });
    for (const [k, v] of Object.entries(filters))
      if (v !== undefined) q.set(k, v instanceof Date ? v.toISOString() : v);
    if (cursor) q.set('cursor', cursor);
    return `/v1/query/events?${q.toString()}`;
  };
  const latency = async (depth: 'first' | 'deep') => {
    const ms: number[] = [];
    for (let s = 0; s < flags.samples; s++) {
      const { filters, cursor } = request(depth);
      const t = performance.now();
      const res = await who.client.listEventsPage({ ...filters, limit: LIMIT, ...(cursor ? { cursor } : {}) });
      ms.push(performance.now() - t);
      if (res.events.length === 0) throw new Error(`${c.name}: empty page, the benchmark would measure nothing`);
    }
    return quantile(ms, 0.5);
  };
  const page1P50Ms = await latency('first');
  const deepP50Ms = await latency('deep');

  const paths = Array.from({ length: 400 * flags.duration }, (_, n) => toPath(request(n % 2 ? 'deep' : 'first')));
  const key = { pem: who.privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(), pubkey: who.pubkey };
  const api = await apiLoad({ url, key, connections: flags.connections, durationSec: flags.duration, paths });
  if (api.non2xx > 0 || api.errors > 0) throw new Error(`API answered ${api.non2xx} non-2xx, ${api.errors} errors`);

  // The same reads through the repository alone (the raw driver, no HTTP, no signing, no serialisation).
  let done = 0;
  const end = Date.now() + flags.duration * 1000;
  await Promise.all(
    Array.from({ length: flags.connections }, async (_, lane) => {
      for (let n = lane; Date.now() < end; n += flags.connections) {
        await app.store.events.list(integratorId, c.filters, n % 2 ? deep.position : undefined, LIMIT + 1);
        done += 1;
      }
    }),
  );
  const repoPagesPerSec = done / flags.duration;
  return {
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
    const heavy = await seedEvents(app.store.events, { integratorIds: ids, count: total, base: BASE, batch: 5000 });
    const seedSec = (performance.now() - t) / 1000;
    console.log(`layout ${layout}: seeded ${total} events (${flags.events} per integrator) in ${round(seedSec)} s`);

    // Integrator 0's events were created at BASE + 0, K, 2K, … ms: bounds at 20 % and 80 % of its history.
    const at = (share: number) => new Date(BASE + Math.floor(total * share));
    const h = heavy[0]!;
    const cases: Case[] = [
      { name: 'none', filters: {} },
      { name: 'accountId', filters: { accountId: h.accountId } },
      { name: 'userId', filters: { userId: h.userId } },
      { name: 'transactionId', filters: { transactionId: h.transactionId } },
      { name: 'eventType', filters: { eventType: h.eventType } },
      { name: 'createdAfter', filters: { createdAfter: at(0.2) } },
      { name: 'createdBefore', filters: { createdBefore: at(0.8) } },
    ];
    const rows: Figures[] = [];
    console.log(
      `GET /v1/query/events, limit ${LIMIT}; pages/s with ${flags.connections} in flight for ${flags.duration} s`,
    );
    console.log('filter         page 1 p50  page N p50 (N)      API pages/s (p99)   repository pages/s  ratio');
    for (const c of cases) {
      const f = await measure(app, url, integrators[0]!, c);
      rows.push(f);
      console.log(
        `${f.filter.padEnd(14)} ${`${f.page1P50Ms} ms`.padEnd(11)} ${`${f.deepP50Ms} ms (${f.deepPage})`.padEnd(19)} ` +
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
        integrators: flags.integrators,
        seedSec: round(seedSec),
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
