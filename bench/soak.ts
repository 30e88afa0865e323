// `npm run bench -- soak [--minutes 30] [--rate 12] [--window 5] [--waiting 20000] [--inFlight 20]` (not in CI)
// 1. --rate events/s (half the measured delivery rate) for --minutes into one healthy HTTPS receiver (an ingest shed
//    with 503 is sent again after 1 s, as a producer would, and counted): deliveries/s
//    and ingest → arrival p99 per minute; the last --window minutes must stay within 20 % of the first; the
//    MongoDB-wire database files (write-ahead log included) are printed every minute and must stay bounded.
// 2. Then --waiting events into a subscription whose receiver always answers 503: once each has made its first
//    attempt they all wait on their retry timers, and the worker's RSS is printed (goal ≤ 600 MB).
// `--minutes 5 --window 1 --waiting 2000` is a short mode for trying it. `--minutes 0` runs phase 2 alone (issue 19
// item 5's memory figure); `--direct 1` starts phase 2's deliveries straight through the store and the fan-out
// (events stored in batches, then one hand-off each, --inFlight at once) instead of the API, whose ingest rate on
// this backend would take ~30 min for 20,000: `npm run bench -- soak --minutes 0 --waiting 20000 --direct 1`.
// Ends with one JSON line.
import { readdirSync, readFileSync, statSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startHttpsReceiver } from '../test/helpers/receiver.js';
import { processWatch, sample } from './lib/proc-stats.js';
import { memoryMap } from './lib/memory-map.js';
import { freePort } from '../scripts/lib/processes.js';
import { shedIngests } from './lib/resend-shed.js';
import { startBenchStack } from './lib/stack.js';
import { lifecycleEvent } from '../test/helpers/deliveries.js';
import { numberFlags, pool, quantile, round } from './lib/stats.js';

const flags = numberFlags({ minutes: 30, rate: 12, window: 5, waiting: 20_000, inFlight: 20, direct: 0 });
const EVENT_ID = 'x-service-webhook-event-id';

const arrivals = new Map<string, number>();
let failingAttempts = 0;
const firstFailing = new Set<string>();
const healthy = await startHttpsReceiver((r) => {
  arrivals.set(String(r.headers[EVENT_ID]), r.receivedAt);
  return { status: 204 };
});
const failing = await startHttpsReceiver((r) => {
  failingAttempts++;
  firstFailing.add(String(r.headers[EVENT_ID]));
  return { status: 503 };
});
// The worker's /metrics on a port of its own: its V8 heap and external memory beside its RSS.
const metricsPort = await freePort();
const logDir = mkdtempSync(join(tmpdir(), 'herald-bench-soak-'));
console.log(`worker log: ${join(logDir, 'worker.log')}`);
const stack = await startBenchStack(logDir, {
  env: { HERALD_WORKER_METRICS_PORT: String(metricsPort), HERALD_TEMPORAL_METRICS_PORT: String(await freePort()) },
});
/** MB of the worker's V8 heap (used, total) and external memory, from prom-client's default metrics. */
async function workerHeapMb(): Promise<Record<string, number> | null> {
  try {
    const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
    const mb = (name: string) => round(Number(new RegExp(`^${name} (\\S+)`, 'm').exec(text)?.[1]) / 2 ** 20);
    return {
      heapUsedMb: mb('nodejs_heap_size_used_bytes'),
      heapTotalMb: mb('nodejs_heap_size_total_bytes'),
      externalMb: mb('nodejs_external_memory_bytes'),
    };
  } catch {
    return null;
  }
}
const watch = processWatch(stack.pids);
/** The worker's resident memory by kind (bench/lib/memory-map.ts) and its main thread's V8 heap. */
const workerMemory = async () => ({
  ...(stack.pids.worker ? memoryMap(stack.pids.worker) : undefined),
  mainThread: await workerHeapMb(),
});
const idle = await workerMemory();
console.log(`worker at idle: ${JSON.stringify(idle)}`);
await stack.subscribe(`https://hooks.example.com:${healthy.port}/soak`, ['customer.created']);

/** The MongoDB-wire server's data folder, from its command line (`-data DIR`). */
function dataDir(): string | undefined {
  const pid = stack.pids.mongoWire;
  if (pid === undefined) return undefined;
  const args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
  return args[args.indexOf('-data') + 1];
}
const dir = dataDir();
/** MB of the data folder's files matching `pattern` (all database files, or the write-ahead logs alone). */
const filesMb = (pattern: RegExp): number =>
  dir
    ? round(readdirSync(dir).reduce((sum, f) => sum + (pattern.test(f) ? statSync(join(dir, f)).size : 0), 0) / 2 ** 20)
    : Number.NaN;
const dbFilesMb = (): number => filesMb(/\.sqlite(-wal|-shm)?$/);
const walMb = (): number => filesMb(/\.sqlite-wal$/);

// Phase 1: open loop at --rate for --minutes; database files and worker RSS sampled every minute.
const published = new Map<string, number>();
const samples: { dbFilesMb: number; walMb: number; workerRssMb: number; temporalRssMb: number }[] = [];
const t0 = Date.now();
const total = Math.round(flags.rate * flags.minutes * 60);
const publishing: Promise<void>[] = [];
const sampler = setInterval(() => {
  watch.tick();
  const s = {
    dbFilesMb: dbFilesMb(),
    walMb: walMb(),
    workerRssMb: (stack.pids.worker && sample(stack.pids.worker)?.rssMb) ?? -1,
    temporalRssMb: (stack.pids.temporal && sample(stack.pids.temporal)?.rssMb) ?? -1,
  };
  samples.push(s);
  console.log(
    `t+${samples.length} min: database files ${s.dbFilesMb} MB (WAL ${s.walMb} MB), worker RSS ${s.workerRssMb} MB, ` +
      `Temporal RSS ${s.temporalRssMb} MB, ingests shed so far ${shedIngests.count}`,
  );
}, 60_000);
for (let i = 0; i < total; i++) {
  const due = t0 + (i * 1000) / flags.rate;
  await new Promise((r) => setTimeout(r, Math.max(0, due - Date.now())));
  const at = Date.now();
  publishing.push(
    stack.publish('customer.created').then(
      (id) => void published.set(id, at),
      (err: unknown) => console.error('publish failed', err),
    ),
  );
}
await Promise.all(publishing);
const drainUntil = Date.now() + 60_000;
while ([...published.keys()].some((id) => !arrivals.has(id)) && Date.now() < drainUntil)
  await new Promise((r) => setTimeout(r, 1_000));
clearInterval(sampler);
// Per minute of the run: arrivals in that minute / 60, and the p99 of ingest → arrival of the events sent in it.
/** p99 of ingest → arrival over the events sent in minutes [from, to) of the run. */
const p99SentIn = (from: number, to: number): number =>
  round(
    quantile(
      [...published].flatMap(([id, sent]) => {
        const at = arrivals.get(id);
        const m = (sent - t0) / 60_000;
        return m >= from && m < to && at !== undefined ? [at - sent] : [];
      }),
      0.99,
    ),
  );
const minutes = Array.from({ length: flags.minutes }, (_, m) => {
  const from = t0 + m * 60_000;
  const inMinute = (t: number): boolean => t >= from && t < from + 60_000;
  return {
    minute: m + 1,
    deliveriesPerSec: round([...arrivals.values()].filter(inMinute).length / 60, 2),
    p99Ms: p99SentIn(m, m + 1),
    ...(samples[m] ?? { dbFilesMb: dbFilesMb(), walMb: walMb(), workerRssMb: -1, temporalRssMb: -1 }),
  };
});
for (const row of minutes)
  console.log(
    `minute ${row.minute}: ${row.deliveriesPerSec} deliveries/s, p99 ${row.p99Ms} ms, database files ${row.dbFilesMb} MB`,
  );
const w = Math.max(1, Math.min(flags.window, Math.floor(minutes.length / 2)));
const mean = (rows: typeof minutes, k: 'deliveriesPerSec' | 'p99Ms'): number =>
  rows.reduce((s, r) => s + r[k], 0) / rows.length;
const first = minutes.slice(0, w);
const last = minutes.slice(-w);
const soak = {
  minutes: minutes.length,
  windowMinutes: w,
  firstDeliveriesPerSec: round(mean(first, 'deliveriesPerSec'), 2),
  lastDeliveriesPerSec: round(mean(last, 'deliveriesPerSec'), 2),
  firstP99Ms: round(mean(first, 'p99Ms')),
  lastP99Ms: round(mean(last, 'p99Ms')),
  firstWindowP99Ms: p99SentIn(0, w),
  lastWindowP99Ms: p99SentIn(minutes.length - w, minutes.length),
  shedAndResent: shedIngests.count,
  undelivered: [...published.keys()].filter((id) => !arrivals.has(id)).length,
  dbFilesMb: minutes.map((m) => m.dbFilesMb),
  walMb: minutes.map((m) => m.walMb),
};
if (flags.minutes > 0)
  console.log(
    `soak: first ${w} min ${soak.firstDeliveriesPerSec}/s p99 ${soak.firstP99Ms} ms; last ${w} min ` +
      `${soak.lastDeliveriesPerSec}/s p99 ${soak.lastP99Ms} ms (goal: within 20 %; p99 over the whole window: ` +
      `${soak.firstWindowP99Ms} → ${soak.lastWindowP99Ms} ms; ingests shed and re-sent ${shedIngests.count}); database files ${soak.dbFilesMb.join(' → ')} MB, of which WAL ${soak.walMb.join(' → ')} MB`,
  );

// Phase 2: --waiting deliveries parked on a failing endpoint.
await stack.subscribe(`https://hooks.example.com:${failing.port}/down`, ['customer.active']);
const t1 = Date.now();
if (flags.direct) {
  // Events stored first (so each first attempt finds its event at once), then handed off as the ingest would.
  for (let from = 0; from < flags.waiting; from += 500) {
    const events = Array.from({ length: Math.min(500, flags.waiting - from) }, () =>
      lifecycleEvent(stack.integratorId, 'customer.active'),
    );
    await stack.app.store.events.insertMany(events);
    await pool(
      events.length,
      flags.inFlight,
      async (i) => void (await stack.app.deliveryService.fanOut.handOff(events[i]!)),
    );
    console.log(`t+${round((Date.now() - t1) / 1000)} s: ${from + events.length} deliveries started`);
  }
} else await pool(flags.waiting, flags.inFlight, async () => void (await stack.publish('customer.active')));
const startSeconds = round((Date.now() - t1) / 1000);
// Worker RSS sampled every 10 s while the deliveries start and wait (retries at 30 s, 60 s, 5 min go on meanwhile).
const rssSeries: number[] = [];
const rssSampler = setInterval(() => {
  const rss = stack.pids.worker ? sample(stack.pids.worker)?.rssMb : undefined;
  if (rss !== undefined) rssSeries.push(rss);
}, 10_000);
while (firstFailing.size < flags.waiting && Date.now() - t1 < 60 * 60_000)
  await new Promise((r) => setTimeout(r, 2_000));
await new Promise((r) => setTimeout(r, 10_000));
clearInterval(rssSampler);
const workerNow = stack.pids.worker ? sample(stack.pids.worker) : undefined;
const waiting = {
  deliveries: firstFailing.size,
  attempts: failingAttempts,
  startedThrough: flags.direct ? 'store + fan-out' : 'API',
  startSeconds,
  firstAttemptsSeconds: round((Date.now() - t1) / 1000),
  workerRssEvery10sMb: rssSeries,
  workerRssMb: workerNow?.rssMb ?? null,
  workerPeakRssMb: workerNow?.peakRssMb ?? null,
  workerIdle: idle,
  workerMemory: await workerMemory(),
  dbFilesMb: dbFilesMb(),
};
console.log(
  `${waiting.deliveries} deliveries waiting on a failing endpoint: worker RSS ${waiting.workerRssMb} MB ` +
    `(peak ${waiting.workerPeakRssMb} MB; goal ≤ 600; by kind ${JSON.stringify(waiting.workerMemory)}), database files ${waiting.dbFilesMb} MB; started through the ` +
    `${waiting.startedThrough} in ${startSeconds} s`,
);
const processes = watch.report();
for (const [name, p] of Object.entries(processes))
  console.log(`  ${name.padEnd(10)} CPU ${p.cpuSeconds} s, peak RSS ${p.peakRssMb} MB`);
console.log(JSON.stringify({ soak: flags.minutes > 0 ? soak : null, waiting, perMinute: minutes, processes }));
await stack.stop();
await healthy.close();
await failing.close();
process.exit(0);
