// `npm run bench -- retention [--minutes 40] [--rate 5] [--retentionMinutes 10] [--sampleSeconds 60]` (issue 44 item 5;
// not in CI: it runs --minutes). On the embedded default, servers of its own with their data in one folder (the
// MongoDB-wire launcher's databases and the Temporal dev server's SQLite file, as `npm run dev` keeps them), Herald
// with HERALD_RETENTION = --retentionMinutes and its purge every minute, and Temporal's namespace retention the same:
// --rate events/s, each to 2 subscriptions, for --minutes. Prints the data folder's size every --sampleSeconds (the
// MongoDB-wire part and Temporal's), and checks that over the second half it stays within ± 15 % of its size at the
// half (the goal), and that every delivery arrived. Ends with one JSON line.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../scripts/lib/processes.js';
import { startMongoWire, startTemporalDev, tools } from '../scripts/lib/servers.js';
import { startHttpsReceiver } from '../test/helpers/receiver.js';
import { startBenchStack } from './lib/stack.js';
import { numberFlags, round } from './lib/stats.js';

const flags = numberFlags({ minutes: 40, rate: 5, retentionMinutes: 10, sampleSeconds: 60, drainMinutes: 3 });
const EVENT_ID = 'x-service-webhook-event-id';

/** Bytes of every file under `dir` (apparent sizes). */
function sizeOf(dir: string, keep: (name: string) => boolean = () => true): number {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) total += sizeOf(path, keep);
    else if (keep(entry.name)) total += statSync(path).size;
  }
  return total;
}

const tmp = mkdtempSync(join(tmpdir(), 'herald-bench-retention-'));
const data = join(tmp, 'data');
mkdirSync(join(data, 'mongo'), { recursive: true });
const mongoPort = await freePort();
const temporalPort = await freePort();
const retention = `${flags.retentionMinutes}m`;
const servers = [
  await startMongoWire({ port: mongoPort, dataDir: join(data, 'mongo'), log: join(tmp, 'mongo-wire.log') }),
  await startTemporalDev({
    port: temporalPort,
    dbFile: join(data, 'temporal.db'),
    log: join(tmp, 'temporal.log'),
    // A namespace retention as short as Herald's (Temporal's floor is 1 h unless lowered), expired within a minute.
    dynamicConfig: [`system.namespaceMinRetentionLocal="${retention}"`, 'history.retentionTimerJitterDuration="1m"'],
  }),
];
const ns = spawnSync(
  tools.temporal,
  [
    'operator',
    'namespace',
    'update',
    '--address',
    `127.0.0.1:${temporalPort}`,
    '-n',
    'default',
    '--retention',
    retention,
  ],
  { encoding: 'utf8' },
);
const temporalRetention = ns.status === 0 ? retention : `7d (refused: ${ns.stderr.trim().split('\n').at(-1)})`;

const arrivals = new Map<string, Set<string>>(); // event id → the paths it reached
const receiver = await startHttpsReceiver((r) => {
  const id = String(r.headers[EVENT_ID]);
  (arrivals.get(id) ?? arrivals.set(id, new Set()).get(id)!).add(r.url);
  return { status: 204 };
});
const stack = await startBenchStack(tmp, {
  env: {
    MONGODB_URL: `mongodb://127.0.0.1:${mongoPort}/?maxPoolSize=16`,
    TEMPORAL_ADDRESS: `127.0.0.1:${temporalPort}`,
    TEMPORAL_NAMESPACE: 'default',
    // Shorter than production allows (1 day): the bench's own mode.
    NODE_ENV: 'development',
    HERALD_RETENTION: retention,
    HERALD_RETENTION_EVERY: '1m',
  },
});
await stack.subscribe(`https://hooks.example.com:${receiver.port}/a`);
await stack.subscribe(`https://hooks.example.com:${receiver.port}/b`);

const t0 = Date.now();
const samples: { minute: number; mongoMB: number; temporalMB: number; totalMB: number }[] = [];
const sample = () => {
  const mongo = sizeOf(join(data, 'mongo'), (n) => !n.startsWith('.'));
  const temporal = sizeOf(data, (n) => n.startsWith('temporal.db'));
  const mb = (b: number) => round(b / 1e6, 1);
  const s = {
    minute: round((Date.now() - t0) / 60_000, 1),
    mongoMB: mb(mongo),
    temporalMB: mb(temporal),
    totalMB: mb(mongo + temporal),
  };
  samples.push(s);
  console.log(`t+${s.minute} min: ${s.totalMB} MB (MongoDB-wire ${s.mongoMB}, Temporal ${s.temporalMB})`);
};
sample();
const sampler = setInterval(sample, flags.sampleSeconds * 1000);

const published: string[] = [];
const total = Math.round(flags.rate * flags.minutes * 60);
const publishing: Promise<void>[] = [];
for (let i = 0; i < total; i++) {
  await new Promise((r) => setTimeout(r, Math.max(0, t0 + (i * 1000) / flags.rate - Date.now())));
  publishing.push(
    stack.publish().then(
      (id) => void published.push(id),
      (err: unknown) => console.error('publish failed', err),
    ),
  );
}
await Promise.all(publishing);
sample();
clearInterval(sampler);
const missing = () => published.filter((id) => (arrivals.get(id)?.size ?? 0) < 2).length;
const drainUntil = Date.now() + flags.drainMinutes * 60_000;
while (missing() > 0 && Date.now() < drainUntil) await new Promise((r) => setTimeout(r, 2_000));

const half = flags.minutes / 2;
const atHalf = samples.reduce((a, b) => (Math.abs(b.minute - half) < Math.abs(a.minute - half) ? b : a));
const secondHalf = samples.filter((s) => s.minute >= atHalf.minute);
const dev = (s: { totalMB: number }) => (s.totalMB - atHalf.totalMB) / atHalf.totalMB;
const worst = secondHalf.reduce((a, b) => (Math.abs(dev(b)) > Math.abs(dev(a)) ? b : a));
const result = {
  bench: 'retention',
  date: new Date().toISOString().slice(0, 10),
  minutes: flags.minutes,
  ratePerSecond: flags.rate,
  retention,
  temporalRetention,
  published: published.length,
  notDelivered: missing(),
  atHalfMB: atHalf.totalMB,
  finalMB: samples.at(-1)?.totalMB,
  worstDeviationPct: round(dev(worst) * 100, 1),
  goalMet: Math.abs(dev(worst)) <= 0.15 && missing() === 0,
  curve: samples.map((s) => [s.minute, s.totalMB, s.mongoMB, s.temporalMB]),
};
console.log(
  `second half: within ${result.worstDeviationPct} % of ${atHalf.totalMB} MB at minute ${atHalf.minute} (goal ± 15 %); ` +
    `${result.notDelivered} of ${published.length} events not delivered to both`,
);
await stack.stop();
await receiver.close();
for (const s of servers.reverse()) await s.stop();
console.log(JSON.stringify(result));
