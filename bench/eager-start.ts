// `npm run bench -- eager-start [--workflows N] [--inFlight K] [--latencySeconds S]`
// Issue 13: does eager workflow start cut the latency from `client.workflow.start` to the activity body? The bare
// workflow (bench/bare-workflow.ts) on one worker with Herald's tuning; its client shares the worker's
// NativeConnection (what eager start needs) and starts each workflow with and without `requestEagerStart`:
// one at a time, then open loop at half the measured maximum; throughput with K in flight for both.
import { performance } from 'node:perf_hooks';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { Client } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import { loadConfig } from '../src/config.js';
import { workerTuning } from '../src/temporal/herald-worker.js';
import { numberFlags, pool, quantile, round } from './lib/stats.js';

const flags = numberFlags({ workflows: 200, inFlight: 40, latencySeconds: 10 });
const config = loadConfig({ ...process.env, HERALD_TEMPORAL_METRICS_PORT: 'off' });
const taskQueue = `eager-${randomBytes(4).toString('hex')}`;
const connection = await NativeConnection.connect({ address: config.TEMPORAL_ADDRESS });
const activityAt = new Map<string, (at: number) => void>();
const worker = await Worker.create({
  connection,
  namespace: config.TEMPORAL_NAMESPACE,
  taskQueue,
  workflowsPath: fileURLToPath(new URL('./bare-workflow.ts', import.meta.url)),
  activities: {
    noop(input: string): Promise<string> {
      activityAt.get(input)?.(performance.now());
      return Promise.resolve(input);
    },
  },
  ...workerTuning(config),
});
const running = worker.run();
const client = new Client({ connection, namespace: config.TEMPORAL_NAMESPACE });

let seq = 0;
const eagerCount = { eager: 0, normal: 0 };
/** Starts one bare workflow; resolves with start → activity body ms (and waits for its result). */
async function one(eager: boolean): Promise<number> {
  const id = `wf-${eager ? 'e' : 'n'}-${seq++}`;
  const reached = new Promise<number>((resolve) => activityAt.set(id, resolve));
  const t0 = performance.now();
  const handle = await client.workflow.start('bareWorkflow', {
    taskQueue,
    workflowId: id,
    args: [id],
    requestEagerStart: eager,
  });
  if (handle.eagerlyStarted) eagerCount[eager ? 'eager' : 'normal']++;
  const ms = (await reached) - t0;
  activityAt.delete(id);
  await handle.result();
  return ms;
}

const summary = (xs: number[]) => ({ p50: round(quantile(xs, 0.5)), p99: round(quantile(xs, 0.99)), n: xs.length });

async function sequential(eager: boolean, count: number): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < count; i++) out.push(await one(eager));
  return out;
}

async function throughput(eager: boolean): Promise<number> {
  const t0 = performance.now();
  await pool(flags.workflows, flags.inFlight, async () => void (await one(eager)));
  return flags.workflows / ((performance.now() - t0) / 1000);
}

async function openLoop(eager: boolean, rate: number): Promise<number[]> {
  const total = Math.max(20, Math.round(rate * flags.latencySeconds));
  const t0 = performance.now();
  const all: Promise<number>[] = [];
  for (let i = 0; i < total; i++) {
    await new Promise((r) => setTimeout(r, Math.max(0, t0 + (i * 1000) / rate - performance.now())));
    all.push(one(eager));
  }
  return await Promise.all(all);
}

try {
  await sequential(false, 20); // warm-up (bundle, pools)
  await sequential(true, 20);
  Object.assign(eagerCount, { eager: 0, normal: 0 });
  const seqNormal = await sequential(false, 100);
  const seqEager = await sequential(true, 100);
  const perSecNormal = await throughput(false);
  const perSecEager = await throughput(true);
  const rate = perSecNormal / 2;
  const halfNormal = await openLoop(false, rate);
  const halfEager = await openLoop(true, rate);
  const figures = {
    oneAtATime: { normal: summary(seqNormal), eager: summary(seqEager) },
    halfLoad: { ratePerSec: round(rate), normal: summary(halfNormal), eager: summary(halfEager) },
    perSec: { normal: round(perSecNormal), eager: round(perSecEager) },
    eagerlyStarted: eagerCount,
  };
  console.log('start → activity body, ms (one at a time; at half the maximum):');
  console.log(`  normal: ${JSON.stringify(figures.oneAtATime.normal)} ${JSON.stringify(figures.halfLoad.normal)}`);
  console.log(`  eager:  ${JSON.stringify(figures.oneAtATime.eager)} ${JSON.stringify(figures.halfLoad.eager)}`);
  console.log(`workflows/s with ${flags.inFlight} in flight: ${JSON.stringify(figures.perSec)}`);
  console.log(`starts the server answered with the first workflow task: ${JSON.stringify(eagerCount)}`);
  console.log(JSON.stringify(figures));
} finally {
  worker.shutdown();
  await running;
  await connection.close();
}
