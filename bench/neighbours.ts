// `npm run bench -- neighbours [--minutes 5] [--rateA 6] [--rateB 2] [--sameOrigin 1] [--slowMs 6000]` (≈ 11 minutes;
// not in CI), and its burst mode
// `npm run bench -- neighbours --burst 1 [--events 20000] [--inFlight 32] [--answerMs 200]` (≈ 10 minutes), and its
// slow-DNS mode `npm run bench -- neighbours --slowDnsMs 30000 [--rateA 3] [--rateB 0.2]` (≈ 7 minutes).
// Two integrators on one Herald, each with one subscription at an HTTPS origin of its own. Hang mode: A's endpoint
// holds every request past Herald's response timeout for --minutes while A publishes --rateA events/s, then answers at
// once; B publishes --rateB/s to a healthy endpoint. --slowMs: A's endpoint answers 204 after that long instead of
// holding (a slow endpoint, not a hung one); --sameOrigin: A's and B's endpoints are two paths of one origin (one host
// and port), as on a hook-hosting service. Every mode also checks that each attempt Herald recorded for A is a request
// A's endpoint saw, and that no B delivery needed a second attempt. Burst mode: A publishes --events as fast as the API admits them
// to an endpoint answering in --answerMs; B publishes --rateB/s until A's backlog has drained. Checks B's first
// attempts (p99 ≤ 1 s over the whole run), that every delivery arrives, and in hang mode that each of A's retries
// after recovery starts within 2 s of its schedule (bench/lib/schedule-slip.ts: counted from the previous attempt's
// answer as Herald recorded it). Slow-DNS mode (bench/lib/slow-dns.ts): A's callback zone answers after --slowDnsMs
// while A publishes and keeps 50 creates to that zone in flight; checks B's first attempts and that B's creates answer
// as fast as before that load (p99 ≤ 100 ms above). Prints per-process CPU seconds and peak RSS. Ends with one JSON
// line.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { setTimeout as delay } from 'node:timers/promises';
import { join } from 'node:path';
import { HTTP_RESPONSE_TIMEOUT_MS } from '../src/domain/attempt-bounds.js';
import { deliveryIdOf } from '../src/store/derived-ids.js';
import { startHttpsReceiver } from '../test/helpers/receiver.js';
import { processWatch } from './lib/proc-stats.js';
import { shedIngests } from './lib/resend-shed.js';
import { scheduleSlip } from './lib/schedule-slip.js';
import * as slowDns from './lib/slow-dns.js';
import { startBenchStack, type BenchIntegrator } from './lib/stack.js';
import { numberFlags, pool, quantile, round } from './lib/stats.js';

const flags = numberFlags({
  burst: 0,
  minutes: 5,
  rateA: 6,
  rateB: 2,
  events: 20_000,
  inFlight: 32,
  answerMs: 200,
  drainMinutes: 15,
  sameOrigin: 0,
  slowMs: 0,
  slowDnsMs: 0,
});
const burst = flags.burst !== 0;
const EVENT_ID = 'x-service-webhook-event-id';
/** A held request is answered after this long; Herald gives up on it at HTTP_RESPONSE_TIMEOUT_MS. */
const HOLD_MS = HTTP_RESPONSE_TIMEOUT_MS + 5_000;
/** A's endpoint answers 2xx, slowly, while "held": each request is a delivery, not a timeout. */
const slowAnswers = flags.slowMs > 0 && flags.slowMs < HTTP_RESPONSE_TIMEOUT_MS;

/** Per integrator: event id → publish time, and the arrival times of its attempts. */
const published = { a: new Map<string, number>(), b: new Map<string, number>() };
const arrivals = { a: new Map<string, number[]>(), b: new Map<string, number[]>() };
const record = (into: Map<string, number[]>, id: string, at: number): void => {
  into.set(id, [...(into.get(id) ?? []), at]);
};
let hangUntil = Infinity;
const held = (at: number): boolean => !burst && at < hangUntil;
const answerA = (r: { headers: Record<string, unknown>; receivedAt: number }) => {
  record(arrivals.a, String(r.headers[EVENT_ID]), r.receivedAt);
  const slowMs = flags.slowMs > 0 ? flags.slowMs : HOLD_MS;
  return { status: 204, delayMs: burst ? flags.answerMs : held(r.receivedAt) ? slowMs : 0 };
};
const answerB = (r: { headers: Record<string, unknown>; receivedAt: number }) => {
  record(arrivals.b, String(r.headers[EVENT_ID]), r.receivedAt);
  return { status: 204 };
};
const endpointA = await startHttpsReceiver((r) => (r.url === '/b' ? answerB(r) : answerA(r)));
const endpointB = flags.sameOrigin ? endpointA : await startHttpsReceiver(answerB);

const dns = flags.slowDnsMs > 0 ? await slowDns.startSlowZone(flags.slowDnsMs) : null;
const stack = await startBenchStack(mkdtempSync(join(tmpdir(), 'herald-bench-neighbours-')), {
  env: dns
    ? {
        HERALD_DNS_SERVERS: dns.address,
        HERALD_MAX_SUBSCRIPTIONS: '100000',
        HERALD_SUBSCRIPTION_CREATES_PER_HOUR: '100000',
      }
    : {},
});
const a = await stack.integrator('neighbour-a');
const b = await stack.integrator('neighbour-b');
const hostA = dns ? `a.${slowDns.SLOW_ZONE}` : 'hooks.example.com';
const subscriptionA = await a.subscribe(`https://${hostA}:${endpointA.port}/a`);
const clients = dns && {
  a: await slowDns.signedClient(stack.admin, stack.app, a.integratorId),
  b: await slowDns.signedClient(stack.admin, stack.app, b.integratorId),
};
let bCreatesUnloaded: number[] = [];
if (dns && clients) {
  await slowDns.timedCreates(dns, clients.b, 30); // warm-up: JIT and connections
  bCreatesUnloaded = await slowDns.timedCreates(dns, clients.b, 100);
}
const subscriptionB = await b.subscribe(`https://hooks.example.com:${endpointB.port}/b`);
const watch = processWatch(stack.pids);
const sampler = setInterval(() => watch.tick(), 5_000);
const t0 = Date.now();
if (!burst) hangUntil = t0 + flags.minutes * 60_000;

/** Per integrator: how long each publish took (the ingest's share of the first attempt's time). */
const ingestMs = { a: [] as number[], b: [] as number[] };
const publishOne = async (who: BenchIntegrator, into: Map<string, number>): Promise<void> => {
  const at = Date.now();
  try {
    into.set(await who.publish(), at);
    (into === published.a ? ingestMs.a : ingestMs.b).push(Date.now() - at);
  } catch (err) {
    console.error('publish failed', err);
  }
};
/** Publishes at `rate`/s until `count` events or until `stop()` says so. */
async function paced(who: BenchIntegrator, into: Map<string, number>, rate: number, count: number, stop = () => false) {
  const sent: Promise<void>[] = [];
  const start = Date.now();
  for (let i = 0; i < count && !stop(); i++) {
    await new Promise((r) => setTimeout(r, Math.max(0, start + (i * 1000) / rate - Date.now())));
    sent.push(publishOne(who, into));
  }
  await Promise.all(sent);
}

const delivered = (who: 'a' | 'b', id: string): boolean => {
  const last = arrivals[who].get(id)?.at(-1);
  return last !== undefined && (who === 'b' || slowAnswers || !held(last));
};
const pendingOf = (who: 'a' | 'b'): number => [...published[who].keys()].filter((id) => !delivered(who, id)).length;
const progress = setInterval(
  () =>
    console.log(
      `t+${Math.round((Date.now() - t0) / 1000)} s: A ${published.a.size} published, ${pendingOf('a')} pending; ` +
        `B ${published.b.size} published, ${pendingOf('b')} pending`,
    ),
  30_000,
);

let aAcceptedAt = t0;
let bCreatesLoaded: number[] = [];
let aCreateAnswers: Record<string, number> = {};
if (burst) {
  let burstDone = false;
  const bLoad = paced(b, published.b, flags.rateB, Infinity, () => burstDone);
  await pool(flags.events, flags.inFlight, () => publishOne(a, published.a));
  aAcceptedAt = Date.now();
  const deadline = aAcceptedAt + flags.drainMinutes * 60_000;
  while (pendingOf('a') > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 1_000));
  burstDone = true;
  await bLoad;
} else {
  const count = (rate: number) => Math.round(rate * flags.minutes * 60);
  let loadDone = false;
  const stalled = clients && slowDns.stalledCreates(clients.a, 50, () => loadDone);
  const bCreates = dns && clients && delay(10_000).then(() => slowDns.timedCreates(dns, clients.b, 100));
  await Promise.all([
    paced(a, published.a, flags.rateA, count(flags.rateA)),
    paced(b, published.b, flags.rateB, count(flags.rateB)),
  ]);
  bCreatesLoaded = (await bCreates) ?? [];
  loadDone = true;
  await stalled?.done;
  aCreateAnswers = Object.fromEntries(stalled?.answers ?? []);
}
/** In slow-DNS mode A's deliveries cannot arrive (its zone never answers in time): the drain waits for B alone. */
const drainingA = () => !dns && pendingOf('a') > 0;
const deadline = Date.now() + flags.drainMinutes * 60_000;
while ((drainingA() || pendingOf('b') > 0) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 2_000));
clearInterval(progress);
clearInterval(sampler);

const firstAttemptMs = (who: 'a' | 'b'): number[] =>
  [...published[who]].flatMap(([id, at]) => {
    const first = arrivals[who].get(id)?.[0];
    return first === undefined ? [] : [first - at];
  });
// A's retries after recovery against the schedule (bench/lib/schedule-slip.ts), by delivery.
const byDelivery = new Map(
  [...published.a.keys()].map((id) => [deliveryIdOf(id, subscriptionA), arrivals.a.get(id) ?? []]),
);
const slip = await scheduleSlip(stack.app.mongo.db, byDelivery, hangUntil);
const bRecords = await scheduleSlip(
  stack.app.mongo.db,
  new Map([...published.b.keys()].map((id) => [deliveryIdOf(id, subscriptionB), arrivals.b.get(id) ?? []])),
  Infinity,
);
const slipAfterRecovery = slip.slipMs;
const lastA = Math.max(...[...arrivals.a.values()].map((l) => l.at(-1) ?? 0));
const firstA = Math.min(...[...arrivals.a.values()].map((l) => l[0] ?? Infinity));
const bFirst = firstAttemptMs('b');
const figures = {
  mode: burst ? 'burst' : dns ? 'slow-dns' : slowAnswers ? 'slow' : 'hang',
  flags,
  a: { events: published.a.size, undelivered: pendingOf('a'), attempts: [...arrivals.a.values()].flat().length },
  b: {
    events: published.b.size,
    undelivered: pendingOf('b'),
    attemptsBeyondFirst: bRecords.attempts - published.b.size,
  },
  bFirstAttemptMs: { p50: quantile(bFirst, 0.5), p99: quantile(bFirst, 0.99), max: Math.max(...bFirst) },
  bIngestMs: { p50: quantile(ingestMs.b, 0.5), p99: quantile(ingestMs.b, 0.99) },
  aFirstAttemptMs: { p50: quantile(firstAttemptMs('a'), 0.5), p99: quantile(firstAttemptMs('a'), 0.99) },
  aIngestMs: { p50: quantile(ingestMs.a, 0.5), p99: quantile(ingestMs.a, 0.99) },
  ...(burst
    ? {
        aAcceptedInS: round((aAcceptedAt - t0) / 1000),
        aDeliveriesPerS: round(published.a.size / ((lastA - firstA) / 1000)),
      }
    : {
        aRetriesAfterRecovery: slipAfterRecovery.length,
        aAttemptsRecorded: slip.attempts,
        aAttemptsRecordedWithoutRequest: slip.unsent,
        aRetrySlipMs: {
          p50: quantile(slipAfterRecovery, 0.5),
          p99: quantile(slipAfterRecovery, 0.99),
          max: Math.max(...slipAfterRecovery),
        },
        aLastDeliverySAfterRecovery: round((lastA - hangUntil) / 1000),
      }),
  ...(dns && {
    bCreateMs: { unloadedP99: slowDns.p99(bCreatesUnloaded), loadedP99: slowDns.p99(bCreatesLoaded) },
    aCreateAnswers,
    aAttemptOutcomes: await slowDns.attemptOutcomes(stack.app.mongo.db, [...byDelivery.keys()]),
  }),
  shedAndResent: shedIngests.count,
  processes: watch.report(),
};
const { a: fa, b: fb, bFirstAttemptMs: bq } = figures;
console.log(
  `mode ${figures.mode}: A ${fa.events - fa.undelivered}/${fa.events}, B ${fb.events - fb.undelivered}/${fb.events} delivered (goal: all)`,
);
console.log(`B first attempts p50 ${bq.p50} ms, p99 ${bq.p99} ms, max ${bq.max} ms (goal p99 ≤ 1000)`);
console.log(`B attempts beyond the first: ${fb.attemptsBeyondFirst} (goal 0)`);
console.log(
  `  of which the ingest request: B p50 ${figures.bIngestMs.p50} ms, p99 ${figures.bIngestMs.p99} ms; ` +
    `A's first request to arrive p50 ${figures.aFirstAttemptMs.p50} ms, p99 ${figures.aFirstAttemptMs.p99} ms (held-back attempts never arrive)`,
);
if ('aRetrySlipMs' in figures && figures.aRetrySlipMs)
  console.log(
    `A retries after recovery: ${figures.aRetriesAfterRecovery} (attempts recorded ${figures.aAttemptsRecorded}, ` +
      `of them without a request: ${figures.aAttemptsRecordedWithoutRequest}, goal 0), slip p50 ${figures.aRetrySlipMs.p50} ms, p99 ` +
      `${figures.aRetrySlipMs.p99} ms, max ${figures.aRetrySlipMs.max} ms (goal ≤ 2000); last delivery ` +
      `${figures.aLastDeliverySAfterRecovery} s after recovery`,
  );
if ('aDeliveriesPerS' in figures)
  console.log(
    `A: ${fa.events} events accepted in ${figures.aAcceptedInS} s, delivered at ${figures.aDeliveriesPerS}/s`,
  );
if (figures.bCreateMs)
  console.log(
    `B creates p99: ${figures.bCreateMs.unloadedP99} ms unloaded, ${figures.bCreateMs.loadedP99} ms beside A's 50 ` +
      `stalled creates (goal ≤ unloaded + 100); A's creates answered ${JSON.stringify(figures.aCreateAnswers)}; A's ` +
      `attempts ${JSON.stringify(figures.aAttemptOutcomes)}`,
  );
for (const [name, p] of Object.entries(figures.processes))
  console.log(`  ${name.padEnd(10)} CPU ${p.cpuSeconds} s, peak RSS ${p.peakRssMb} MB`);
console.log(JSON.stringify(figures));
await stack.stop();
await endpointA.close();
if (endpointB !== endpointA) await endpointB.close();
await dns?.close();
process.exit((dns || fa.undelivered === 0) && fb.undelivered === 0 ? 0 : 1);
