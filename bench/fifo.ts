// `npm run bench -- fifo [--events 600] [--rate 40] [--faultEvents 60] [--faultRate 0.5] [--outageMinutes 5]
// [--neighbourRate 2] [--drainMinutes 15]` (≈ 13 minutes; not in CI; loopback only). Issue 47 item 4, ordered delivery
// (docs/deliveries.md, "Ordered delivery"), in two phases on one stack (API in process, worker process, dev server):
// 1. Throughput: --events events at --rate/s to a subscription whose receiver answers 204 after 20 ms, first with
//    ordering none (the baseline, same run), then with ordering fifo. Goal: fifo ≥ 25 deliveries/s, in order.
// 2. Faults: --faultEvents events at --faultRate/s to a FIFO subscription whose receiver answers 500 to a random 10 %
//    of requests and 503 to all of them for --outageMinutes from the phase's 30th second; beside it, another
//    integrator's ordinary subscription gets --neighbourRate events/s on a healthy receiver. Goals: 0 lost, 0 out of
//    order at the FIFO receiver, the neighbour's first attempts p99 ≤ 1 s.
// Phase 1 also prints the lane's rate once publishing has ended (fifoAfterPublishPerSec: the lane without the ingest
// beside it on the same cores). Order is checked against each delivery's place in its lane (read from the database
// after the phase). Ends with one JSON line; exit 0 when every goal is met.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deliveryIdOf } from '../src/store/derived-ids.js';
import { startHttpsReceiver, type RecordedRequest } from '../test/helpers/receiver.js';
import { laneOrder } from './lib/lane-order.js';
import { startBenchStack, type BenchIntegrator } from './lib/stack.js';
import { numberFlags, quantile, round } from './lib/stats.js';

const flags = numberFlags({
  events: 600,
  rate: 40,
  faultEvents: 60,
  faultRate: 0.5,
  outageMinutes: 5,
  neighbourRate: 2,
  drainMinutes: 15,
});
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Per path: each request's delivery id, arrival, and whether it was answered 2xx. */
const seen = new Map<string, { deliveryId: string; at: number; ok: boolean }[]>();
let outage = { from: Infinity, until: 0 };
let inFlight = 0;
let mostInFlight = 0;
const answer = (r: RecordedRequest): { status: number; delayMs?: number } => {
  if (r.url === '/fast' || r.url === '/fifo-fast') return { status: 204, delayMs: 20 };
  if (r.url !== '/fifo-faults') return { status: 204 };
  if (r.receivedAt >= outage.from && r.receivedAt < outage.until) return { status: 503 };
  return { status: Math.random() < 0.1 ? 500 : 204 };
};
const receiver = await startHttpsReceiver(async (r) => {
  const verdict = answer(r);
  const list = seen.get(r.url) ?? [];
  list.push({
    deliveryId: String(r.headers['x-service-webhook-delivery-id']),
    at: r.receivedAt,
    ok: verdict.status < 300,
  });
  seen.set(r.url, list);
  if (r.url.startsWith('/fifo')) mostInFlight = Math.max(mostInFlight, ++inFlight);
  if (verdict.delayMs) await sleep(verdict.delayMs);
  if (r.url.startsWith('/fifo')) inFlight--;
  return { status: verdict.status };
});
// Ingests of one integrator at once raised from 2 (HERALD_INGEST_CONCURRENCY_PER_INTEGRATOR), so that phase 1 measures
// the lane rather than one integrator's ingest bound.
const stack = await startBenchStack(mkdtempSync(join(tmpdir(), 'herald-bench-fifo-')), {
  env: { HERALD_INGEST_CONCURRENCY_PER_INTEGRATOR: '16', HERALD_INGEST_CONCURRENCY: '32' },
});
const url = (path: string) => `https://hooks.example.com:${receiver.port}${path}`;

/** Publishes `count` events at `rate`/s; resolves with each event's id and when it was sent, in ingest order. */
async function publishAt(who: BenchIntegrator, count: number, rate: number) {
  const sent: Promise<{ id: string; at: number }>[] = [];
  const start = Date.now();
  for (let i = 0; i < count; i++) {
    await sleep(Math.max(0, start + (i * 1000) / rate - Date.now()));
    const at = Date.now();
    sent.push(who.publish().then((id) => ({ id, at })));
  }
  return await Promise.all(sent);
}

/** Deliveries of `path` that had a 2xx. */
const delivered = (path: string) => new Set((seen.get(path) ?? []).filter((s) => s.ok).map((s) => s.deliveryId));

async function drain(paths: string[], expected: number[], minutes: number): Promise<void> {
  const deadline = Date.now() + minutes * 60_000;
  while (paths.some((p, i) => delivered(p).size < (expected[i] ?? 0)) && Date.now() < deadline) await sleep(1_000);
}

/** The receiver's view of an ordered subscription's lane (bench/lib/lane-order.ts). */
const outOfOrder = async (path: string, subscriptionId: string) =>
  await laneOrder(
    stack.app.store.db,
    subscriptionId,
    (seen.get(path) ?? []).map((s) => s.deliveryId),
  );

/** Deliveries per second from the first 2xx (after `from`, when given) to the last. */
function throughput(path: string, from = 0): number {
  const oks = (seen.get(path) ?? []).filter((s) => s.ok && s.at >= from).map((s) => s.at);
  const span = (Math.max(...oks) - Math.min(...oks)) / 1000;
  return round((oks.length - 1) / Math.max(span, 0.001), 1);
}

// Phase 1: throughput, ordinary (baseline) then ordered, one after the other.
const baseline = await stack.integrator('baseline');
await baseline.subscribe(url('/fast'));
await publishAt(baseline, flags.events, flags.rate);
await drain(['/fast'], [flags.events], 5);
const ordered = await stack.integrator('ordered');
const fastFifo = await ordered.subscribe(url('/fifo-fast'), undefined, 'fifo');
const fastStart = Date.now();
await publishAt(ordered, flags.events, flags.rate);
const published = Date.now();
await drain(['/fifo-fast'], [flags.events], 10);
const fast = {
  baselinePerSec: throughput('/fast'),
  fifoPerSec: throughput('/fifo-fast'),
  // The lane alone, once the ingest (API, hand-offs, first attempts) no longer shares the cores with it.
  fifoAfterPublishPerSec: throughput('/fifo-fast', published),
  fifoSeconds: round((Date.now() - fastStart) / 1000),
  lost: flags.events - delivered('/fifo-fast').size,
  ...(await outOfOrder('/fifo-fast', fastFifo)),
  mostInFlight,
};
console.log(`phase 1: ${JSON.stringify(fast)}`);

// Phase 2: random 500s and an outage on the FIFO subscription, a healthy neighbour of another integrator beside it.
// --faultEvents 0 skips it.
async function faultPhase() {
  const faulty = await stack.integrator('faulty');
  const faultFifo = await faulty.subscribe(url('/fifo-faults'), undefined, 'fifo');
  const neighbour = await stack.integrator('neighbour');
  const neighbourSub = await neighbour.subscribe(url('/neighbour'));
  const t0 = Date.now();
  outage = { from: t0 + 30_000, until: t0 + 30_000 + flags.outageMinutes * 60_000 };
  const phaseSeconds = flags.faultEvents / flags.faultRate;
  const [, neighbourSent] = await Promise.all([
    publishAt(faulty, flags.faultEvents, flags.faultRate),
    publishAt(neighbour, Math.round(phaseSeconds * flags.neighbourRate), flags.neighbourRate),
  ]);
  await drain(['/fifo-faults', '/neighbour'], [flags.faultEvents, neighbourSent.length], flags.drainMinutes);
  const firstAt = new Map<string, number>();
  for (const s of seen.get('/neighbour') ?? []) if (!firstAt.has(s.deliveryId)) firstAt.set(s.deliveryId, s.at);
  const firstMs = neighbourSent.map(({ id, at }) => (firstAt.get(deliveryIdOf(id, neighbourSub)) ?? Infinity) - at);
  const faults = {
    events: flags.faultEvents,
    lost: flags.faultEvents - delivered('/fifo-faults').size,
    requests: seen.get('/fifo-faults')?.length ?? 0,
    ...(await outOfOrder('/fifo-faults', faultFifo)),
    mostInFlight,
    neighbourDeliveries: neighbourSent.length,
    neighbourFirstAttemptP99Ms: round(quantile(firstMs, 0.99)),
    neighbourFirstAttemptP50Ms: round(quantile(firstMs, 0.5)),
    seconds: round((Date.now() - t0) / 1000),
  };
  console.log(`phase 2: ${JSON.stringify(faults)}`);
  return faults;
}
const faults = flags.faultEvents > 0 ? await faultPhase() : null;

const goals = {
  fifoAtLeast25PerSec: fast.fifoPerSec >= 25,
  inOrder: fast.outOfOrder + (faults?.outOfOrder ?? 0) + fast.withoutPlace + (faults?.withoutPlace ?? 0) === 0,
  oneAtATime: mostInFlight === 1,
  noneLost: fast.lost === 0 && (faults?.lost ?? 0) === 0,
  neighbourP99Under1s: (faults?.neighbourFirstAttemptP99Ms ?? 0) <= 1000,
};
const pass = Object.values(goals).every(Boolean);
console.log(
  `fifo ${fast.fifoPerSec}/s against ${fast.baselinePerSec}/s unordered (ratio ${round(fast.fifoPerSec / fast.baselinePerSec, 2)})`,
);
console.log(JSON.stringify({ pass, goals, fast, faults, flags }));
await stack.stop();
await receiver.close();
process.exit(pass ? 0 : 1);
