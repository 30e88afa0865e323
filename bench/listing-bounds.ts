// `npm run bench -- listing-bounds [--deliveries N] [--walkers W] [--samples S]` (issue 45 item 3; not in CI, a few
// minutes, most of it seeding): integrator A has N deliveries (200,000), none of them succeeded; B has 2,000. Through
// the API (signed, real HTTP), on the embedded default's layout: (1) B's first deliveries page, S times one after the
// other, alone; (2) A's `status=succeeded` pages, one at a time, followed to the end: each page's time (the goal: ≤ 1 s)
// and how many it took; (3) B's reads again while W walkers page through A's filter without pause: B's p99 against
// (1) (the goal: within ± 50 %). Ends with one JSON line.
import { randomBytes, randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { buildApp } from '../src/process/app.js';
import { loadConfig } from '../src/config.js';
import type { DeliveryDoc } from '../src/store/documents.js';
import { listen, registerIntegrator, type TestIntegrator } from '../test/helpers/integrators.js';
import { signedGet, uniquePath } from './lib/listing-paths.js';
import { numberFlags, quantile, round } from './lib/stats.js';

const flags = numberFlags({ deliveries: 200_000, walkers: 4, samples: 300, batch: 5_000 });
const BASE = Date.UTC(2026, 0, 1);

function deliveriesOf(integratorId: string, count: number, from: number, status: (k: number) => DeliveryDoc['status']) {
  const subs = Array.from({ length: 10 }, () => randomUUID());
  return Array.from({ length: count }, (_, j): DeliveryDoc => {
    const k = from + j;
    const createdAt = new Date(BASE + k * 10);
    return {
      _id: randomUUID(),
      integratorId,
      subscriptionId: subs[k % 10]!,
      eventId: randomUUID(),
      eventType: 'customer.created',
      status: status(k),
      attemptCount: 7,
      createdAt,
      updatedAt: createdAt,
      nextAttemptAt: null,
      terminalReason: status(k) === 'failed' ? 'retries_exhausted' : null,
      lastResponseSummary: { status: 503, headers: {}, body: '', truncated: false },
    };
  });
}

/** Milliseconds of each call, one after the other. */
async function timed(n: number, call: () => Promise<unknown>): Promise<number[]> {
  const ms: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await call();
    ms.push(performance.now() - t);
  }
  return ms;
}

/** Each request under a target of its own: the signed client would otherwise pace repeats of one GET to one a second. */
let n = 0;
const page = async (who: TestIntegrator, url: string, query: string) => {
  const body = await signedGet(url, who, uniquePath(`/v1/webhooks/deliveries?${query}`, (n += 1)));
  return body as { deliveries: unknown[]; nextCursor: string | null };
};

const stats = (ms: number[]) => ({ p50: round(quantile(ms, 0.5), 1), p99: round(quantile(ms, 0.99), 1) });

const config = loadConfig({
  ...process.env,
  MONGODB_DB: `bench_bounds_${randomBytes(4).toString('hex')}`,
  HERALD_ADMIN_TOKEN: 'test-admin-token-0123456789',
  HERALD_MASTER_KEY: randomBytes(32).toString('base64'),
  LOG_LEVEL: 'warn',
  HERALD_METRICS_PORT: '0',
  // The walkers page as fast as they can: the bench measures the reads, not the request budget's 429s.
  HERALD_RATE_LIMIT_PER_SECOND: '1000000',
  HERALD_RATE_LIMIT_BURST: '1000000',
});
const app = await buildApp({ config, logger: false });
try {
  const url = await listen(app);
  const a: TestIntegrator = await registerIntegrator(app, url, 'a-long-history');
  const b: TestIntegrator = await registerIntegrator(app, url, 'b-neighbour');
  const layout = await app.store.events.layout();
  const t0 = performance.now();
  for (let from = 0; from < flags.deliveries; from += flags.batch) {
    const n = Math.min(flags.batch, flags.deliveries - from);
    await app.store.deliveries.insertMany(deliveriesOf(a.integratorId, n, from, () => 'failed'));
    if ((from / flags.batch) % 8 === 7)
      process.stderr.write(`seeded ${from + n} (${round((performance.now() - t0) / 1000)} s)\n`);
  }
  await app.store.deliveries.insertMany(
    deliveriesOf(b.integratorId, 2_000, flags.deliveries, (k) => (k % 3 === 0 ? 'failed' : 'succeeded')),
  );
  const seedSec = round((performance.now() - t0) / 1000);
  console.log(`layout ${layout}: seeded ${flags.deliveries} + 2,000 deliveries in ${seedSec} s`);

  const neighbourRead = () => page(b, url, 'limit=100');
  const rare = (cursor: string | undefined) =>
    page(a, url, `status=succeeded&limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
  await timed(20, neighbourRead); // warm
  const alone = await timed(flags.samples, neighbourRead);

  // A's rare filter, followed to the end, one page at a time.
  const pageMs: number[] = [];
  let cursor: string | undefined;
  let found = 0;
  do {
    const t = performance.now();
    const answer = await rare(cursor);
    pageMs.push(performance.now() - t);
    found += answer.deliveries.length;
    cursor = answer.nextCursor ?? undefined;
  } while (cursor);
  const pages = { count: pageMs.length, found, ...stats(pageMs), max: round(Math.max(...pageMs), 1) };
  console.log(`A: status=succeeded over ${flags.deliveries} deliveries: ${JSON.stringify(pages)}`);

  // B's reads while A's walkers page without pause.
  let stop = false;
  let walked = 0;
  const walkers = Array.from({ length: flags.walkers }, async () => {
    while (!stop) {
      let c: string | undefined;
      do {
        const page = await a.client.listDeliveriesPage({
          status: 'succeeded',
          limit: 100,
          ...(c ? { cursor: c } : {}),
        });
        walked += 1;
        c = page.nextCursor ?? undefined;
      } while (c && !stop);
    }
  });
  await new Promise((r) => setTimeout(r, 1_000));
  const loaded = await timed(flags.samples, neighbourRead);
  stop = true;
  await Promise.all(walkers);
  const ratio = round(quantile(loaded, 0.99) / quantile(alone, 0.99), 2);
  console.log(`B's first page p50/p99: alone ${JSON.stringify(stats(alone))}, beside A's ${flags.walkers} walkers`);
  console.log(
    `  ${JSON.stringify(stats(loaded))} (${walked} pages of A's meanwhile): p99 ratio ${ratio} (goal 0.5–1.5)`,
  );
  console.log(
    JSON.stringify({
      layout,
      deliveries: flags.deliveries,
      seedSec,
      rarePageMs: pages,
      neighbourAloneMs: stats(alone),
      neighbourLoadedMs: stats(loaded),
      p99Ratio: ratio,
      walkers: flags.walkers,
      walkerPages: walked,
    }),
  );
} finally {
  await app.mongo.db.dropDatabase();
  await app.close();
}
