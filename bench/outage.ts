// `npm run bench -- outage [--rate 8] [--minutes 5] [--outageMinutes 6] [--histories 300]` (≈ 12 minutes; not in CI;
// `--minutes 1 --outageMinutes 1` is a short mode of ≈ 3 minutes)
// An ordinary endpoint outage: --rate events/s for --minutes, each to two subscriptions — one whose HTTPS receiver
// answers 503 for the first --outageMinutes, then 204, and one that stays healthy. Checks that every delivery
// arrives, that each retry arrives within 2 s of its schedule (p99; the schedule counts from the previous attempt's
// arrival), that first attempts arrive within 1 s of ingestion (p99) on both endpoints, and prints per-process CPU
// seconds and peak RSS, and where the time goes: the ingest request's phases (bench/lib/ingest-marks.ts) and, from
// --histories sampled workflow histories per endpoint, the first attempt's and the retries' (bench/lib/history-breakdown.ts),
// and the worker's own Temporal SDK figures (bench/lib/worker-sdk-metrics.ts). BENCH_WORKER_NODE_ARGS="--cpu-prof
// --cpu-prof-dir=DIR" profiles the worker (bench/lib/stack.ts).
// Ends with one JSON line.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RETRY_DELAYS_SECONDS } from '../src/domain/retry-schedule.js';
import { deliveryIdOf } from '../src/store/derived-ids.js';
import { deliveryWorkflowId } from '../workflows/messages.js';
import { startHttpsReceiver } from '../test/helpers/receiver.js';
import { historyBreakdown } from './lib/history-breakdown.js';
import { ingestMarks } from './lib/ingest-marks.js';
import { freePort } from '../scripts/lib/processes.js';
import { processWatch } from './lib/proc-stats.js';
import { startBenchStack } from './lib/stack.js';
import { shedIngests } from './lib/resend-shed.js';
import { numberFlags, quantile, round } from './lib/stats.js';
import { workerSdkMetrics } from './lib/worker-sdk-metrics.js';

const flags = numberFlags({ rate: 8, minutes: 5, outageMinutes: 6, drainMinutes: 10, histories: 300 });
const EVENT_ID = 'x-service-webhook-event-id';
/** Per receiver: event id → arrival times (ms since the epoch) of each attempt, in order. */
type Arrivals = Map<string, number[]>;

const failing: Arrivals = new Map();
const healthy: Arrivals = new Map();
const record = (into: Arrivals, id: string, at: number): void => {
  const list = into.get(id) ?? [];
  list.push(at);
  into.set(id, list);
};
const down = await startHttpsReceiver((r) => {
  record(failing, String(r.headers[EVENT_ID]), r.receivedAt);
  return { status: r.receivedAt < outageUntil ? 503 : 204 };
});
const up = await startHttpsReceiver((r) => {
  record(healthy, String(r.headers[EVENT_ID]), r.receivedAt);
  return { status: 204 };
});
// The worker's /metrics (with the Temporal SDK's) on ports of its own: its workflow cache and task latencies.
const metricsPort = await freePort();
const stack = await startBenchStack(mkdtempSync(join(tmpdir(), 'herald-bench-outage-')), {
  monitorCommands: true,
  env: { HERALD_WORKER_METRICS_PORT: String(metricsPort), HERALD_TEMPORAL_METRICS_PORT: String(await freePort()) },
});
const ingest = ingestMarks(stack.app);
// The clock starts once the worker polls (startBenchStack waits for it): the outage counts from the first event.
const t0 = Date.now();
const outageUntil = t0 + flags.outageMinutes * 60_000;
const watch = processWatch(stack.pids);
const sampler = setInterval(() => watch.tick(), 5_000);
const downId = await stack.subscribe(`https://hooks.example.com:${down.port}/outage`);
const upId = await stack.subscribe(`https://hooks.example.com:${up.port}/healthy`);

const ingestedAt = new Map<string, number>();
const total = Math.round(flags.rate * flags.minutes * 60);
const publishing: Promise<void>[] = [];
const start = Date.now();
for (let i = 0; i < total; i++) {
  await new Promise((r) => setTimeout(r, Math.max(0, start + (i * 1000) / flags.rate - Date.now())));
  const at = Date.now();
  publishing.push(
    stack.publish().then(
      (id) => {
        ingestedAt.set(id, at);
        ingest.sent(id, at);
        ingest.answered(id);
      },
      (err: unknown) => console.error('publish failed', err),
    ),
  );
  if (i % (flags.rate * 60) === 0) console.log(`t+${Math.round((Date.now() - t0) / 1000)} s: ${i} events published`);
}
await Promise.all(publishing);

/** The event's delivery succeeded: its last arrival was after the outage (or on the healthy endpoint). */
const delivered = (into: Arrivals, id: string, outage: boolean): boolean => {
  const list = into.get(id);
  const last = list?.[list.length - 1];
  return last !== undefined && (!outage || last >= outageUntil);
};
const pending = (): number =>
  [...ingestedAt.keys()].filter((id) => !delivered(failing, id, true) || !delivered(healthy, id, false)).length;
const deadline = outageUntil + flags.drainMinutes * 60_000;
while (pending() > 0 && Date.now() < deadline) {
  await new Promise((r) => setTimeout(r, 5_000));
  if (Math.round((Date.now() - t0) / 1000) % 60 < 5)
    console.log(`t+${Math.round((Date.now() - t0) / 1000)} s: ${pending()} events not yet delivered to both`);
}
const doneAt = Date.now();
clearInterval(sampler);
const workerSdk = await workerSdkMetrics(`http://127.0.0.1:${metricsPort}/metrics`);

const firstAttemptMs = (into: Arrivals): number[] =>
  [...ingestedAt].flatMap(([id, at]) => {
    const first = into.get(id)?.[0];
    return first === undefined ? [] : [first - at];
  });
// Lateness of retry n: its arrival − (arrival of attempt n−1 + the n−1th delay).
const retryLateMs: number[] = [];
for (const list of failing.values())
  for (let n = 1; n < list.length; n++) {
    const prev = list[n - 1] ?? 0;
    retryLateMs.push((list[n] ?? 0) - prev - (RETRY_DELAYS_SECONDS[n - 1] ?? 0) * 1000);
  }
const sampled = [...ingestedAt.keys()].filter(
  (_, i, all) => i % Math.max(1, Math.floor(all.length / flags.histories)) === 0,
);
const histories = (subscriptionId: string) =>
  historyBreakdown(
    stack.app.temporal.client,
    sampled.map((id) => deliveryWorkflowId(deliveryIdOf(id, subscriptionId))),
  );
const duplicates = [...healthy.values()].filter((l) => l.length > 1).length;
const lastFailingArrival = Math.max(...[...failing.values()].map((l) => l[l.length - 1] ?? 0));
const figures = {
  events: ingestedAt.size,
  deliveries: ingestedAt.size * 2,
  undelivered: pending(),
  healthyDuplicates: duplicates,
  firstAttemptP99Ms: {
    failing: round(quantile(firstAttemptMs(failing), 0.99)),
    healthy: round(quantile(firstAttemptMs(healthy), 0.99)),
  },
  firstAttemptP50Ms: {
    failing: round(quantile(firstAttemptMs(failing), 0.5)),
    healthy: round(quantile(firstAttemptMs(healthy), 0.5)),
  },
  retries: retryLateMs.length,
  retryLateP50Ms: round(quantile(retryLateMs, 0.5)),
  retryLateP99Ms: round(quantile(retryLateMs, 0.99)),
  retryLateMaxMs: round(Math.max(...retryLateMs)),
  lastDeliveryAtS: round((lastFailingArrival - t0) / 1000),
  runSeconds: round((doneAt - t0) / 1000),
  processes: watch.report(),
  ingestMs: ingest.summary(),
  historiesMs: { failing: await histories(downId), healthy: await histories(upId) },
  workerSdk,
  /** Ingests the API shed with 503 and the producer sent again after 1 s (their first attempt counts from the first send). */
  shedAndResent: shedIngests.count,
};
console.log(
  `${figures.deliveries - figures.undelivered * 2}/${figures.deliveries} deliveries arrived` +
    ` (goal: all), last at t+${figures.lastDeliveryAtS} s; ingests shed and re-sent: ${figures.shedAndResent}`,
);
console.log(
  `first attempts p99: failing endpoint ${figures.firstAttemptP99Ms.failing} ms, healthy ${figures.firstAttemptP99Ms.healthy} ms (goal ≤ 1000)`,
);
console.log(
  `retries: ${figures.retries}, late by p50 ${figures.retryLateP50Ms} ms, p99 ${figures.retryLateP99Ms} ms (goal ≤ 2000)`,
);
console.log('ingest request phases (ms, p50 / p99):');
for (const [name, q] of Object.entries(figures.ingestMs)) console.log(`  ${name.padEnd(22)} ${q.p50} / ${q.p99}`);
console.log(
  `from ${sampled.length} histories per endpoint (ms, p50 / p99; firstTries: Temporal's tries of the first attempt):`,
);
const { failing: hf, healthy: hh } = figures.historiesMs;
for (const name of Object.keys(hf) as (keyof typeof hf)[])
  console.log(
    `  ${name.padEnd(24)} failing ${hf[name].p50} / ${hf[name].p99}, healthy ${hh[name].p50} / ${hh[name].p99}`,
  );
console.log(`worker (Temporal SDK metrics): ${JSON.stringify(workerSdk)}`);
for (const [name, p] of Object.entries(figures.processes))
  console.log(`  ${name.padEnd(10)} CPU ${p.cpuSeconds} s, peak RSS ${p.peakRssMb} MB`);
console.log(JSON.stringify(figures));
await stack.stop();
await down.close();
await up.close();
process.exit(figures.undelivered === 0 ? 0 : 1);
