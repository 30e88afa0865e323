// `npm run bench -- delivery [--deliveries N] [--rounds R] [--inFlight K] [--latencySeconds S] [--metricsRounds M]
//   [--profile 1] [--workers W] [--eager 0]`: end-to-end deliveries/s (ingest → 2xx at a local HTTPS receiver) beside a
// bare workflow with one no-op activity, same dev server and worker settings, N of each in R rounds of alternating
// order (default 400 in 2; R even), then ingest → receiver latency at half that maximum,
// with where a delivery's time goes and the CPU the two local servers spend per delivery. Eager start (default; --eager
// 0: off): the bench's worker plays the API's opt-in worker (src/temporal/api-worker.ts), the bare workflow started
// the same way. --metricsRounds M > 0: instead, M alternating rounds with metrics off and on (both scraped every 5 s):
// the cost of metrics. --profile 1: instead, N bare workflows then N deliveries under the V8 profiler
// (bench/lib/cpu-profile.ts).
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { Client } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import { buildApp } from '../src/process/app.js';
import { HeraldAdminClient } from '../src/client/admin-client.js';
import type { PublishEventInput } from '../src/client/events.js';
import { loadConfig } from '../src/config.js';
import { workerTuning } from '../src/temporal/herald-worker.js';
import { createActivities } from '../activities/index.js';
import { createKeyVault } from '../src/crypto/key-encryption.js';
import { loadMasterKey } from '../src/crypto/master-key.js';
import { WEBHOOK_USER_AGENT } from '../src/crypto/webhook-signature.js';
import { createWebhookHttpClient } from '../src/net/http-client.js';
import { callbackUrlPolicyFromConfig } from '../src/net/policy-from-config.js';
import { createStore } from '../src/store/index.js';
import { createMongo } from '../src/store/mongo.js';
import { createHeraldWorker } from '../src/temporal/herald-worker.js';
import { lifecycleEvent, seedSubscription } from '../test/helpers/deliveries.js';
import { startHttpsReceiver } from '../test/helpers/receiver.js';
import { installTemporalRuntime } from '../src/telemetry/temporal-runtime.js';
import { createAttemptObserver } from '../src/telemetry/attempt-observer.js';
import { bareActivities, bareWorkflow } from './bare-workflow.js';
import { profiled } from './lib/cpu-profile.js';
import { createPhaseRecorder } from './lib/delivery-phases.js';
import { takeTurns } from './lib/take-turns.js';
import { numberFlags, pool, quantile, round } from './lib/stats.js';
import { switchableMetrics } from './lib/switchable-metrics.js';
import { metricsCost } from './lib/metrics-cost.js';
import { poolFetch } from './lib/pool-fetch.js';
import { historyBreakdown } from './lib/history-breakdown.js';
import { deliveryIdOf } from '../src/store/derived-ids.js';
import { deliveryWorkflowId } from '../workflows/messages.js';
import { resendingShed } from './lib/resend-shed.js';

// `--workers N`: the scale-out figure (1 … N worker processes) instead; that file ends the process.
if (process.argv.includes('--workers')) await import('./delivery-workers.js');

const flags = numberFlags({
  deliveries: 400,
  rounds: 2,
  inFlight: 40,
  latencySeconds: 10,
  metricsRounds: 0,
  profile: 0,
  eager: 1,
});
const eager = flags.eager !== 0;
const token = randomBytes(24).toString('hex');
const config = loadConfig({
  ...process.env,
  MONGODB_DB: `bench_${randomBytes(4).toString('hex')}`,
  TEMPORAL_TASK_QUEUE: `bench-${randomBytes(4).toString('hex')}`,
  HERALD_ADMIN_TOKEN: token,
  HERALD_MASTER_KEY: randomBytes(32).toString('base64'),
  HERALD_DNS_STATIC: 'hooks.example.com=127.0.0.1',
  HERALD_ALLOW_CIDRS: '127.0.0.1/32',
  LOG_LEVEL: 'warn',
  // Ephemeral scrape ports, the Temporal SDK exporter off.
  HERALD_METRICS_PORT: '0',
  HERALD_WORKER_METRICS_PORT: '0',
  HERALD_TEMPORAL_METRICS_PORT: 'off',
  // The API's own worker is replaced by the bench's (below), whose activities are timed.
  HERALD_API_WORKER_SLOTS: '0',
});
await installTemporalRuntime(config);
const apiMetrics = switchableMetrics();
const workerMetrics = switchableMetrics();

const phases = createPhaseRecorder();
const arrivals = new Map<string, (at: number) => void>();
const receiver = await startHttpsReceiver((request) => {
  const eventId = String(request.headers['x-service-webhook-event-id']);
  phases.mark(eventId, 'arrived');
  arrivals.get(eventId)?.(performance.now());
  return { status: 204 };
});
const app = await buildApp({ config, logger: false, metrics: apiMetrics.metrics });
phases.instrumentApi(app.store, app.deliveryService.fanOut);
const baseUrl = await app.listen({ host: '127.0.0.1', port: 0 });
// Herald's worker as src/process/worker-runtime.ts builds it, with the event read, the POST and the record timed. Eager,
// it plays the API's own worker, which shares the API's store (src/api/plugins/app/api-worker.ts); else a worker of its
// own connection and store, as a worker process has.
const workerMongo = createMongo(config);
await workerMongo.client.connect();
const timed = phases.instrumentWorker(
  eager ? app.store : createStore(workerMongo.db),
  createWebhookHttpClient({ policy: callbackUrlPolicyFromConfig(config), userAgent: WEBHOOK_USER_AGENT }),
);
const workerConnection = await NativeConnection.connect({ address: config.TEMPORAL_ADDRESS });
const worker = await createHeraldWorker({
  config,
  connection: workerConnection,
  activities: phases.instrumentActivities(
    createActivities({
      ...timed,
      vault: createKeyVault(loadMasterKey(config).key),
      observer: createAttemptObserver({ metrics: workerMetrics.metrics, logger: { info: () => undefined } }),
    }),
  ),
});
const running = worker.run();
const eagerClient = new Client({ connection: workerConnection, namespace: config.TEMPORAL_NAMESPACE });
if (eager)
  app.apiWorker = { eagerClient: () => eagerClient, running: Promise.resolve(true), close: () => Promise.resolve() };
// The baseline's worker: same server, same process, same tuning, its own task queue and bundle.
const bareQueue = `${config.TEMPORAL_TASK_QUEUE}-bare`;
const bareConnection = await NativeConnection.connect({ address: config.TEMPORAL_ADDRESS });
const bareWorker = await Worker.create({
  connection: bareConnection,
  namespace: config.TEMPORAL_NAMESPACE,
  taskQueue: bareQueue,
  workflowsPath: fileURLToPath(new URL('./bare-workflow.ts', import.meta.url)),
  activities: bareActivities,
  ...workerTuning(config),
});
const bareRunning = bareWorker.run();
const bareClient = new Client({ connection: bareConnection, namespace: config.TEMPORAL_NAMESPACE });
const load = poolFetch(baseUrl);
const admin = new HeraldAdminClient(baseUrl, token, load.fetch);
const integrator = await admin.createIntegrator('bench');
const { subscription } = await seedSubscription(app.store, app.vault, {
  integratorId: integrator.id,
  url: `https://hooks.example.com:${receiver.port}/bench`,
});

const ingestMs: number[] = [];

/** Ingests one event through the API and resolves with ingest → receiver milliseconds. */
const latencyEvents: string[] = [];
async function deliverOne(): Promise<number> {
  const event = lifecycleEvent(integrator.id);
  latencyEvents.push(event._id);
  const arrived = new Promise<number>((resolve) => arrivals.set(event._id, resolve));
  const started = performance.now();
  phases.mark(event._id, 'sent');
  await resendingShed(() => admin.publishEvent(JSON.parse(event.body) as PublishEventInput));
  phases.mark(event._id, 'response');
  ingestMs.push(performance.now() - started);
  const at = await arrived;
  arrivals.delete(event._id);
  return at - started;
}

async function bareOne(i: number, run: string): Promise<void> {
  await bareClient.workflow.execute(bareWorkflow, {
    taskQueue: bareQueue,
    workflowId: `bare-${run}-${i}`,
    args: ['x'],
    requestEagerStart: eager,
  });
}

/** Items per second for `count` items, `inFlight` at a time. */
async function throughput(count: number, task: (i: number) => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await pool(count, flags.inFlight, async (i) => void (await task(i)));
  return count / ((performance.now() - started) / 1000);
}

try {
  if (flags.metricsRounds > 0) {
    await throughput(40, deliverOne); // warm-up
    await metricsCost({
      rounds: flags.metricsRounds,
      deliveries: flags.deliveries,
      apiMetrics,
      workerMetrics,
      metricsUrl: () => String(app.metricsUrl()),
      throughput: () => throughput(flags.deliveries, deliverOne),
    });
  } else if (flags.profile > 0) {
    await throughput(20, (i) => bareOne(i, 'warm'));
    await throughput(20, deliverOne);
    const bare = await profiled('bare', flags.deliveries, () => throughput(flags.deliveries, (i) => bareOne(i, 'run')));
    const delivery = await profiled('delivery', flags.deliveries, () => throughput(flags.deliveries, deliverOne));
    console.log(JSON.stringify({ selfCpuMsPerItem: { bare, delivery } }, null, 1));
  } else await classic();
} finally {
  worker.shutdown();
  bareWorker.shutdown();
  await Promise.all([running, bareRunning]);
  await Promise.all([bareConnection.close(), workerConnection.close(), timed.http.close()]);
  await workerMongo.client.close();
  await load.close();
  await receiver.close();
  await app.mongo.db.dropDatabase();
  await app.close();
}

async function classic(): Promise<void> {
  await throughput(20, (i) => bareOne(i, 'warm')); // warm both paths (bundle load, pools, key cache)
  await throughput(20, deliverOne);
  const [bare, delivery] = await takeTurns((i) => bareOne(i, 'run'), deliverOne, {
    items: flags.deliveries,
    rounds: flags.rounds,
    inFlight: flags.inFlight,
    mongoWirePort: new URL(config.MONGODB_URL).port,
    temporalPort: config.TEMPORAL_ADDRESS.split(':')[1]!,
  });
  console.log(`CPU ms per item (bare workflow): ${JSON.stringify(bare.cpuMs)}`);
  console.log(`CPU ms per item (delivery):      ${JSON.stringify(delivery.cpuMs)}`);
  console.log(`  this process by thread (bare):     ${JSON.stringify(bare.threadMs)}`);
  console.log(`  this process by thread (delivery): ${JSON.stringify(delivery.threadMs)}`);
  console.log(`bare workflow + no-op activity: ${round(bare.perSec)} /s (rounds: ${bare.rounds.join(', ')})`);
  console.log(`deliveries (ingest → 2xx):      ${round(delivery.perSec)} /s (rounds: ${delivery.rounds.join(', ')})`);

  // Open loop at half the measured maximum: latency without queueing behind our own load.
  const rate = delivery.perSec / 2;
  const latencies: Promise<number>[] = [];
  const total = Math.max(20, Math.round(rate * flags.latencySeconds));
  latencyEvents.length = 0;
  phases.record(true);
  const t0 = performance.now();
  for (let i = 0; i < total; i++) {
    const due = t0 + (i * 1000) / rate;
    await new Promise((r) => setTimeout(r, Math.max(0, due - performance.now())));
    latencies.push(deliverOne());
  }
  const measured = await Promise.all(latencies);
  const ingest = ingestMs.slice(-measured.length);
  console.log(
    `  of which the ingest request: p50 ${round(quantile(ingest, 0.5))} ms, p99 ${round(quantile(ingest, 0.99))} ms`,
  );
  // The first workflow task from the server's side: queued in matching (none when started eagerly), then run.
  const history = await historyBreakdown(
    eagerClient,
    latencyEvents.map((e) => deliveryWorkflowId(deliveryIdOf(e, subscription._id))),
  );
  const figures = {
    eagerStart: eager,
    deliveriesPerSec: round(delivery.perSec),
    bareWorkflowsPerSec: round(bare.perSec),
    rounds: { bare: bare.rounds, deliveries: delivery.rounds },
    ratio: round(delivery.perSec / bare.perSec, 2),
    latencyRatePerSec: round(rate),
    latencySamples: measured.length,
    p50Ms: round(quantile(measured, 0.5)),
    p99Ms: round(quantile(measured, 0.99)),
    breakdownP50Ms: phases.summary(latencyEvents),
    firstTask: {
      queued: history.firstTaskWait.p50,
      run: history.firstTaskRun.p50,
      toActivity: history.firstStartToScheduled.p50,
    },
    cpuMsPerDelivery: delivery.cpuMs,
    cpuMsPerBareWorkflow: bare.cpuMs,
    threadMsPerDelivery: delivery.threadMs,
    threadMsPerBareWorkflow: bare.threadMs,
  };
  console.log('where the time goes (p50 of each phase, ms, at the latency rate):');
  for (const [phase, ms] of Object.entries(figures.breakdownP50Ms)) console.log(`  ${phase.padEnd(54)} ${ms}`);
  const { firstTask } = figures;
  console.log(
    `  from the histories (server clock): workflow started → first task started ${firstTask.queued}, ` +
      `task run ${firstTask.run}, started → activity scheduled ${firstTask.toActivity}`,
  );
  console.log(`ratio ${figures.ratio} (goal ≥ 0.8)`);
  console.log(
    `latency at ${figures.latencyRatePerSec}/s: p50 ${figures.p50Ms} ms (goal ≤ 50), p99 ${figures.p99Ms} ms (goal ≤ 250)`,
  );
  console.log(JSON.stringify(figures));
}
