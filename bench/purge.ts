// `npm run bench -- purge [--deliveries 200000] [--rate 5] [--seconds 120]` (issue 44 item 2; not in CI, most of it
// seeding). Integrator "old" has --deliveries deliveries (and their events) that succeeded two days ago, all expired
// under HERALD_RETENTION 1d; integrator "live" publishes --rate events/s to a receiver on loopback. Twice for --seconds:
// (1) alone, (2) while the retention purge runs (its workflow started through the worker, as its Schedule would). The
// figure is the live deliveries' first-attempt p99 (ingest to the receiver) in (2) against (1): the goal ≤ 1.5 ×.
// Also prints how fast the purge went and how long it took to the end. Ends with one JSON line.
import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { DeliveryDoc, EventDoc } from '../src/store/documents.js';
import { retentionScheduleId } from '../src/temporal/retention-schedule.js';
import { seedDoc } from '../test/helpers/events.js';
import { delivery } from '../test/helpers/retention-seed.js';
import { startHttpsReceiver } from '../test/helpers/receiver.js';
import { startBenchStack } from './lib/stack.js';
import { numberFlags, quantile, round } from './lib/stats.js';

const flags = numberFlags({ deliveries: 200_000, rate: 5, seconds: 120, batch: 5_000, purgeMinutes: 30 });
const EVENT_ID = 'x-service-webhook-event-id';
const DAY = 86_400_000;

const arrived = new Map<string, number>();
const receiver = await startHttpsReceiver((r) => {
  const id = String(r.headers[EVENT_ID]);
  if (!arrived.has(id)) arrived.set(id, r.receivedAt);
  return { status: 204 };
});
const stack = await startBenchStack(mkdtempSync(join(tmpdir(), 'herald-bench-purge-')), {
  env: { NODE_ENV: 'development', HERALD_RETENTION: '1d', HERALD_RETENTION_EVERY: '3650d' },
});
const layout = await stack.app.store.events.layout();
const old = await stack.integrator('old');
const oldSub = randomUUID();

const t0 = performance.now();
const base = Date.now() - 2 * DAY - flags.deliveries * 10;
for (let from = 0; from < flags.deliveries; from += flags.batch) {
  const n = Math.min(flags.batch, flags.deliveries - from);
  const events: EventDoc[] = Array.from({ length: n }, (_, j) =>
    seedDoc(
      { integratorId: old.integratorId, createdAt: new Date(base + (from + j) * 10), accountId: `a${j % 50}` },
      j,
    ),
  );
  const deliveries = events.map((e): DeliveryDoc => delivery(e, oldSub, {}));
  await stack.app.store.events.insertMany(events);
  await stack.app.store.deliveries.insertMany(deliveries);
  if ((from / flags.batch) % 8 === 7)
    process.stderr.write(`seeded ${from + n} (${round((performance.now() - t0) / 1000)} s)\n`);
}
console.log(
  `layout ${layout}: seeded ${flags.deliveries} expired deliveries and events in ${round((performance.now() - t0) / 1000)} s`,
);

await stack.subscribe(`https://hooks.example.com:${receiver.port}/live`);
/** First-attempt latencies (ms) of --seconds of the live integrator's events. */
async function liveRun(): Promise<number[]> {
  const sent = new Map<string, number>();
  const start = Date.now();
  const total = flags.rate * flags.seconds;
  const publishing: Promise<void>[] = [];
  for (let i = 0; i < total; i++) {
    await new Promise((r) => setTimeout(r, Math.max(0, start + (i * 1000) / flags.rate - Date.now())));
    const at = Date.now();
    publishing.push(stack.publish().then((id) => void sent.set(id, at)));
  }
  await Promise.all(publishing);
  const until = Date.now() + 60_000;
  while ([...sent.keys()].some((id) => !arrived.has(id)) && Date.now() < until)
    await new Promise((r) => setTimeout(r, 500));
  return [...sent].map(([id, at]) => (arrived.get(id) ?? Number.POSITIVE_INFINITY) - at);
}
const stats = (ms: number[]) => ({ p50: round(quantile(ms, 0.5), 0), p99: round(quantile(ms, 0.99), 0) });

await liveRun(); // warm
const alone = await liveRun();
console.log(`live first attempts alone: ${JSON.stringify(stats(alone))} ms`);

const remaining = () => stack.app.store.db.collection('deliveries').countDocuments({ integratorId: old.integratorId });
const purgeStart = Date.now();
const schedule = stack.app.temporal.client.schedule.getHandle(retentionScheduleId(stack.config.TEMPORAL_TASK_QUEUE));
await schedule.trigger();
const during = await liveRun();
const purgedDuring = flags.deliveries - (await remaining());
console.log(
  `live first attempts during the purge: ${JSON.stringify(stats(during))} ms (${purgedDuring} purged meanwhile)`,
);
const ratio = round(quantile(during, 0.99) / quantile(alone, 0.99), 2);
let left = await remaining();
const purgeUntil = purgeStart + flags.purgeMinutes * 60_000;
while (left > 0 && Date.now() < purgeUntil) {
  await new Promise((r) => setTimeout(r, 10_000));
  left = await remaining();
  process.stderr.write(`t+${round((Date.now() - purgeStart) / 1000, 0)} s: ${left} left\n`);
}
const purgeSeconds = round((Date.now() - purgeStart) / 1000, 0);
console.log(
  `p99 ratio ${ratio} (goal ≤ 1.5); the purge: ${flags.deliveries - left} of ${flags.deliveries} in ${purgeSeconds} s` +
    ` (${round((flags.deliveries - left) / purgeSeconds, 0)} deliveries/s)`,
);
await stack.stop();
await receiver.close();
console.log(
  JSON.stringify({
    bench: 'purge',
    date: new Date().toISOString().slice(0, 10),
    layout,
    deliveries: flags.deliveries,
    alone: stats(alone),
    during: stats(during),
    ratio,
    goalMet: ratio <= 1.5,
    purgedDuring,
    purgeSeconds,
    left,
  }),
);
