// `npm run chaos` (not in CI; ≈ 5 minutes at the full size; loopback only): issue 14's chaos run, on servers of its
// own in a temp folder so that it can kill them. CHAOS_EVENTS events (default 2,000) at CHAOS_RATE events/s
// (default 10), each to three subscriptions of one HTTPS receiver that answers 503 to every tenth first receipt of
// two of them; the third is ordered (ordering fifo): it must arrive in its lane's order, and is never answered 503. The
// first CHAOS_CALM_FRACTION (0.25) of the ingest runs without faults; then, until the ingest ends, one of the two
// worker processes is killed -9 every CHAOS_WORKER_KILL_SECONDS (10) and started again, and the API, the Temporal
// dev server and the MongoDB-wire server are each killed -9 once (at 20 %, 45 % and 70 % of the fault phase) and
// restarted on their data. Waits up to CHAOS_DRAIN_MINUTES (10) after the ingest for every delivery, then ends with
// one JSON line; exit 0 when every goal is met. CHAOS_TEMPORAL=cluster runs it on a Temporal cluster of its own (the
// server killed and restarted instead of the dev server); TEMPORAL_ADDRESS on a running Temporal it does not kill
// (bench/lib/chaos-temporal.ts). What each figure means: docs/chaos.md.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HeraldAdminClient } from '../src/client/admin-client.js';
import type { PublishEventInput } from '../src/client/events.js';
import { createKeyVault } from '../src/crypto/key-encryption.js';
import { loadMasterKey } from '../src/crypto/master-key.js';
import { createStore } from '../src/store/index.js';
import { createMongo } from '../src/store/mongo.js';
import { createTemporal } from '../src/temporal/client.js';
import { assertSearchAttributes } from '../src/temporal/namespace.js';
import { lifecycleEvent, seedSubscription } from '../test/helpers/deliveries.js';
import { startHttpsReceiver } from '../test/helpers/receiver.js';
import { cpuMeter } from './lib/chaos-cpu.js';
import { createChaosLedger } from './lib/chaos-ledger.js';
import { laneOrder, type LaneOrder } from './lib/lane-order.js';
import { chaosTemporalChoice } from './lib/chaos-mode.js';
import { chaosStack } from './lib/chaos-stack.js';
import { workerPolling } from './lib/stack.js';
import { quantile, round } from './lib/stats.js';
import type { Supervised } from './lib/supervised.js';

const num = (name: string, fallback: number): number => {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number`);
  return value;
};
const size = {
  events: Math.round(num('CHAOS_EVENTS', 2000)),
  rate: num('CHAOS_RATE', 10),
  calmFraction: Math.min(0.9, num('CHAOS_CALM_FRACTION', 0.25)),
  workerKillSeconds: num('CHAOS_WORKER_KILL_SECONDS', 10),
  drainMinutes: num('CHAOS_DRAIN_MINUTES', 10),
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const temporalChoice = chaosTemporalChoice(process.env);
const tmp = mkdtempSync(join(tmpdir(), 'herald-chaos-'));
const { env, config, apiPort, mongo, temporal, api, workers } = await chaosStack(tmp, temporalChoice);
const all: Supervised[] = [mongo, ...temporal.processes, api, ...workers];
// Whatever ends this process (an error, Ctrl-C, SIGTERM), the servers it started do not outlive it.
process.on('exit', () => all.forEach((p) => p.killNow()));
process.once('SIGINT', () => process.exit(130));
process.once('SIGTERM', () => process.exit(143));

// '/fifo' is an ordered subscription (docs/deliveries.md, "Ordered delivery"): its receiver must see it in order.
const paths = ['/a', '/b', '/fifo'];
const ledger = createChaosLedger(paths, 10, ['/fifo']);
const receiver = await startHttpsReceiver((r) => ledger.handle(r));
const timed: typeof fetch = (url, init) => fetch(url, { ...init, signal: AbortSignal.timeout(10_000) });
const admin = new HeraldAdminClient(`http://127.0.0.1:${apiPort}`, env.HERALD_ADMIN_TOKEN, timed);
const temporalClient = createTemporal(config);

/** The server's version, as its GetSystemInfo answers it. */
async function temporalVersion(): Promise<string | null> {
  const info = await temporalClient.connection.workflowService.getSystemInfo({}).catch(() => null);
  return info?.serverVersion || null;
}

async function setUp(): Promise<string> {
  await mongo.start();
  await temporal.start();
  // An external server without Herald's search attributes: stop here, naming the fix (the workers would not start).
  await assertSearchAttributes(temporalClient.connection, config.TEMPORAL_NAMESPACE);
  await api.start();
  await Promise.all(workers.map((w) => w.start()));
  await workerPolling(temporalClient, config, undefined, workers.length);
  const integrator = await admin.createIntegrator('chaos');
  const db = createMongo(config);
  await db.client.connect();
  const store = createStore(db.db);
  const vault = createKeyVault(loadMasterKey(config).key);
  for (const path of paths) {
    const { subscription } = await seedSubscription(store, vault, {
      integratorId: integrator.id,
      url: `https://hooks.example.com:${receiver.port}${path}`,
      ...(path === '/fifo' ? { ordering: 'fifo' as const } : {}),
    });
    if (path === '/fifo') fifoSubscriptionId = subscription._id;
  }
  await db.client.close();
  return integrator.id;
}

let fifoSubscriptionId = '';
/** The '/fifo' subscription's lane as its receiver saw it (bench/lib/lane-order.ts). */
async function fifoOutOfOrder(): Promise<LaneOrder> {
  const db = createMongo(config);
  await db.client.connect();
  const order = await laneOrder(db.db, fifoSubscriptionId, ledger.arrivals('/fifo'));
  await db.client.close();
  return order;
}

/**
 * Publishes one event through the API, retrying with backoff (the API may be down or slow) until it is stored or
 * `giveUpAt`; resolves false when it never was.
 */
async function publish(integratorId: string, giveUpAt: number): Promise<boolean> {
  const event = lifecycleEvent(integratorId);
  const body = JSON.parse(event.body) as PublishEventInput;
  for (let wait = 250; Date.now() < giveUpAt; wait = Math.min(wait * 2, 5_000)) {
    try {
      await admin.publishEvent(body);
      ledger.ingested(event._id, Date.now());
      return true;
    } catch {
      await sleep(wait);
    }
  }
  return false;
}

interface Fault {
  what: string;
  at: number;
  /** kill → up again (its launch resolved: the port open, or the worker process spawned). */
  restartMs?: number;
  /** kill → the deliveries waiting for an answer back to the calm phase's usual level. */
  recoverySeconds?: number | null;
}

const integratorId = await setUp();
const version = await temporalVersion();
console.log(
  `chaos: Temporal ${temporal.mode} at ${temporal.address}${version ? ` (server ${version})` : ''}: ${
    temporal.server ? 'killed -9 once in the fault phase' : 'external, so never killed: no Temporal fault in this run'
  }`,
);
const t0 = Date.now();
const ingestMs = (size.events / size.rate) * 1000;
const faultsFrom = t0 + ingestMs * size.calmFraction;
const ingestEnd = t0 + ingestMs;
const faults: Fault[] = [];
const samples: { at: number; waiting: number }[] = [];
const sampler = setInterval(() => samples.push({ at: Date.now(), waiting: ledger.waiting() }), 1_000);
const cpu = cpuMeter({ mongoWire: () => mongo.pid, ...temporal.pids }); // from t0: the set-up's CPU is not counted
const cpuSampler = setInterval(() => cpu.tick(), 2_000);

async function fault(what: string, target: Supervised, at: number): Promise<void> {
  await sleep(Math.max(0, at - Date.now()));
  const entry: Fault = { what, at: Date.now() };
  faults.push(entry);
  console.log(`t+${round((entry.at - t0) / 1000)} s: kill -9 ${what}`);
  entry.restartMs = await target.kill9();
}

const faultPhase = ingestEnd - faultsFrom;
const chaos = [
  fault('api', api, faultsFrom + 0.2 * faultPhase),
  ...(temporal.server ? [fault('temporal', temporal.server, faultsFrom + 0.45 * faultPhase)] : []),
  fault('mongo-wire', mongo, faultsFrom + 0.7 * faultPhase),
  (async () => {
    for (
      let i = 0, at = faultsFrom + size.workerKillSeconds * 1000;
      at < ingestEnd;
      i++, at += size.workerKillSeconds * 1000
    )
      await fault(`worker-${(i % 2) + 1}`, workers[i % 2]!, at);
  })(),
];

const publishing: Promise<boolean>[] = [];
const giveUpAt = ingestEnd + 5 * 60_000;
for (let i = 0; i < size.events; i++) {
  await sleep(Math.max(0, t0 + (i * 1000) / size.rate - Date.now()));
  publishing.push(publish(integratorId, giveUpAt));
}
const stored = await Promise.all(publishing);
await Promise.all(chaos);
const notStored = stored.filter((ok) => !ok).length;
const ingestDone = Date.now();
console.log(
  `t+${round((ingestDone - t0) / 1000)} s: ${ledger.ingestedCount} events stored; waiting for the deliveries`,
);
const expected = () => ledger.ingestedCount * paths.length;
const drainDeadline = ingestDone + size.drainMinutes * 60_000;
while (ledger.delivered() < expected() && Date.now() < drainDeadline) await sleep(1_000);
clearInterval(sampler);
clearInterval(cpuSampler);
const endAt = Date.now();
const cpuSeconds = cpu.seconds();

/** Counts the deliveries the API shows with `status`, every page. */
async function countInApi(status: 'succeeded'): Promise<number> {
  let n = 0;
  let cursor: string | undefined;
  do {
    const page = await admin.listDeliveriesPage({ status, limit: 250, ...(cursor ? { cursor } : {}) });
    n += page.deliveries.length;
    cursor = page.nextCursor ?? undefined;
  } while (cursor);
  return n;
}
await sleep(2_000); // the last records land
const succeededInApi = await countInApi('succeeded');
const fifo = await fifoOutOfOrder();

const calm = samples.filter((s) => s.at < faultsFrom).map((s) => s.waiting);
const calmLevel = Math.max(1, quantile(calm, 0.9) || 0);
for (const f of faults) {
  const level = Math.max(calmLevel, samples.filter((s) => s.at <= f.at).at(-1)?.waiting ?? 0);
  const back = samples.find((s) => s.at > f.at + 1_000 && s.waiting <= level);
  f.recoverySeconds = back ? round((back.at - f.at) / 1000) : null;
}
const workerRecovery = faults.filter((f) => f.what.startsWith('worker')).map((f) => f.recoverySeconds ?? Infinity);
const rate = (from: number, to: number) => round(ledger.deliveredBetween(from, to) / ((to - from) / 1000), 2);
const duplicates = ledger.duplicates();
const lastDelivered = ledger.lastDeliveredAt();
const figures = {
  temporal: temporal.mode,
  temporalVersion: version,
  size,
  events: ledger.ingestedCount,
  eventsNotStored: notStored,
  deliveries: expected(),
  undelivered: expected() - ledger.delivered(),
  succeededInApi,
  fifo,
  duplicatePosts: duplicates.posts,
  duplicateDeliveries: duplicates.deliveries,
  duplicatePercent: round((100 * duplicates.posts) / Math.max(1, expected()), 2),
  faultFreePerSec: rate(t0, faultsFrom),
  duringFaultsPerSec: rate(faultsFrom, ingestEnd),
  lastDeliveryAfterIngestS: round((lastDelivered - ingestDone) / 1000),
  recoverySeconds: Object.fromEntries(
    faults.filter((f) => !f.what.startsWith('worker')).map((f) => [f.what, f.recoverySeconds]),
  ),
  restartMs: Object.fromEntries(faults.filter((f) => !f.what.startsWith('worker')).map((f) => [f.what, f.restartMs])),
  workerKills: {
    count: workerRecovery.length,
    recoveryP50S: round(quantile(workerRecovery, 0.5)),
    recoveryMaxS: round(Math.max(...workerRecovery, 0)),
  },
  /** Average cores over the run; `temporal` is the server process alone, `postgres` (a cluster's) beside it. */
  cores: Object.fromEntries(
    Object.entries(cpuSeconds).map(([name, secs]) => [name, round(secs / ((endAt - t0) / 1000), 2)]),
  ),
  runSeconds: round((endAt - t0) / 1000),
};
const goals = {
  allStored: notStored === 0,
  allDelivered: figures.undelivered === 0,
  allSucceededInApi: succeededInApi === figures.deliveries,
  fifoInOrder: fifo.outOfOrder === 0 && fifo.withoutPlace === 0,
  deliveredWithin10MinOfIngest: figures.undelivered === 0 && figures.lastDeliveryAfterIngestS <= 600,
  duplicatesUnder2Percent: figures.duplicatePercent < 2,
  duringFaultsAtLeastHalf: figures.duringFaultsPerSec >= figures.faultFreePerSec / 2,
};
const pass = Object.values(goals).every(Boolean);

await Promise.allSettled([temporalClient.close(), receiver.close()]);
for (const p of [...workers, api, ...[...temporal.processes].reverse(), mongo]) await p.stop();
console.log(`logs: ${tmp}`);
if (pass && !process.env.HERALD_KEEP_TMP) rmSync(tmp, { recursive: true, force: true });
console.log(
  JSON.stringify({ pass, goals, ...figures, restarts: Object.fromEntries(all.map((p) => [p.name, p.restarts])) }),
);
process.exit(pass ? 0 : 1);
