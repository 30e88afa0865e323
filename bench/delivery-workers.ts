// `npm run bench -- delivery --workers N [--deliveries D] [--inFlight K]` (bench/delivery.ts hands over to this file):
// the scale-out figure. Ingest → 2xx deliveries/s with 1, 2, … N worker processes (src/process/worker.ts, each with its
// own MongoDB pool and HERALD_WORKER_MAX_ACTIVITIES) against one Temporal and one MongoDB, in one run: the API in this
// process, D deliveries per round, K in flight. Prints, per round, the cores each process used, to show what bounds the
// rate on this machine; ends with one JSON line.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { ChildProcess } from 'node:child_process';
import { buildApp } from '../src/process/app.js';
import { HeraldAdminClient } from '../src/client/admin-client.js';
import type { PublishEventInput } from '../src/client/events.js';
import { loadConfig } from '../src/config.js';
import { lifecycleEvent, seedSubscription } from '../test/helpers/deliveries.js';
import { startHttpsReceiver } from '../test/helpers/receiver.js';
import { cpuSecondsOf } from './lib/delivery-phases.js';
import { sample } from './lib/proc-stats.js';
import { benchEnv, spawnWorker, workerPolling } from './lib/stack.js';
import { numberFlags, pool, round } from './lib/stats.js';

const flags = numberFlags({ workers: 2, deliveries: 300, inFlight: 40 });
const logDir = mkdtempSync(join(tmpdir(), 'herald-bench-workers-'));
// Scrape ports off: several workers run at once (the defaults are fixed ports).
const env = benchEnv({
  HERALD_METRICS_PORT: 'off',
  HERALD_WORKER_METRICS_PORT: 'off',
  HERALD_TEMPORAL_METRICS_PORT: 'off',
});
const config = loadConfig(env);
const arrivals = new Map<string, () => void>();
const receiver = await startHttpsReceiver((r) => {
  arrivals.get(String(r.headers['x-service-webhook-event-id']))?.();
  return { status: 204 };
});
const app = await buildApp({ config, logger: false });
const admin = new HeraldAdminClient(await app.listen({ host: '127.0.0.1', port: 0 }), env.HERALD_ADMIN_TOKEN);
const integrator = await admin.createIntegrator('bench');
await seedSubscription(app.store, app.vault, {
  integratorId: integrator.id,
  url: `https://hooks.example.com:${receiver.port}/workers`,
});

async function deliverOne(): Promise<void> {
  const event = lifecycleEvent(integrator.id);
  const arrived = new Promise<void>((resolve) => arrivals.set(event._id, resolve));
  await admin.publishEvent(JSON.parse(event.body) as PublishEventInput);
  await arrived;
  arrivals.delete(event._id);
}

const mongoWire = ['-listen', `127.0.0.1:${new URL(config.MONGODB_URL).port}`];
const temporal = ['start-dev', '--port', config.TEMPORAL_ADDRESS.split(':')[1]!];
const workers: ChildProcess[] = [];
const cpuNow = () => ({
  mongoWire: cpuSecondsOf(mongoWire),
  temporal: cpuSecondsOf(temporal),
  workers: workers.reduce((sum, w) => sum + (sample(w.pid ?? -1)?.cpuSeconds ?? 0), 0),
  apiAndLoad: (process.cpuUsage().user + process.cpuUsage().system) / 1e6,
});

const rounds: { workers: number; deliveriesPerSec: number; cores: Record<string, number> }[] = [];
try {
  for (let n = 1; n <= flags.workers; n++) {
    const worker = spawnWorker(env, join(logDir, `worker-${n}.log`));
    workers.push(worker);
    await workerPolling(app.temporal, config, worker, n);
    await pool(20, flags.inFlight, deliverOne); // warm the new worker (bundle, pools, key cache)
    const before = cpuNow();
    const started = performance.now();
    await pool(flags.deliveries, flags.inFlight, deliverOne);
    const seconds = (performance.now() - started) / 1000;
    const after = cpuNow();
    const cores = Object.fromEntries(
      Object.entries(after).map(([k, v]) => [k, round((v - before[k as keyof typeof before]) / seconds, 2)]),
    );
    rounds.push({ workers: n, deliveriesPerSec: round(flags.deliveries / seconds), cores });
    console.log(
      `${n} worker process(es): ${round(flags.deliveries / seconds)} deliveries/s; cores ${JSON.stringify(cores)}`,
    );
  }
} finally {
  for (const w of workers) w.kill('SIGTERM');
  await Promise.all(workers.map((w) => (w.exitCode === null ? new Promise((r) => w.once('exit', r)) : undefined)));
  await receiver.close();
  await app.mongo.db.dropDatabase();
  await app.close();
}
const first = rounds[0]?.deliveriesPerSec ?? Number.NaN;
console.log(
  JSON.stringify({
    deliveries: flags.deliveries,
    inFlight: flags.inFlight,
    deliveriesPerSec: rounds.map((r) => r.deliveriesPerSec),
    scaleOut: round((rounds.at(-1)?.deliveriesPerSec ?? Number.NaN) / first, 2),
    rounds,
  }),
);
process.exit(0);
