// Issue 42: an integrator whose DNS zone stalls must not slow other integrators' subscription writes. Through the real
// API over HTTP, resolving with c-ares against a DNS server of the test's own (HERALD_DNS_SERVERS): while integrator A
// keeps 50 creates to its stalled zone in flight, integrator B's creates answer as fast as without them, and each of
// A's ends in a 400 within the resolver's 5 s bound.
import assert from 'node:assert/strict';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { setTimeout as delay } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildTestApp, closeTestApp } from '../helpers/app.js';
import { startDnsServer, type TestDnsServer } from '../helpers/dns-server.js';
import { listen, registerIntegrator, type TestIntegrator } from '../helpers/integrators.js';
import { rejectsWith } from '../helpers/subscriptions.js';

const STALLED = 'slow.example.net';
const FAST = 'fast.example.org';
const PUBLIC_V4 = '93.184.216.34';
/** Per phase: with 100 samples the p99 is not the single slowest, which a busy shared machine makes noisy. */
const SAMPLES = 100;
const IN_FLIGHT_OF_A = 50;
const RESOLVE_BOUND_MS = 5_000;

const p99 = (samples: readonly number[]): number => {
  const sorted = [...samples].sort((x, y) => x - y);
  return sorted[Math.ceil(sorted.length * 0.99) - 1] ?? Number.NaN;
};

describe('a stalled DNS zone of one integrator (issue 42)', () => {
  let dns: TestDnsServer;
  let app: FastifyInstance;
  let a: TestIntegrator;
  let b: TestIntegrator;
  let nextName = 0;

  /** Creates of B, one at a time, each to a name not looked up before (so each asks the DNS server); their ms. */
  async function timedCreatesOfB(count: number): Promise<number[]> {
    const took: number[] = [];
    for (let i = 0; i < count; i += 1) {
      const name = `b${(nextName += 1)}.${FAST}`;
      dns.set(name, [PUBLIC_V4]);
      const started = performance.now();
      await b.client.createSubscription({ url: `https://${name}/hook` });
      took.push(performance.now() - started);
    }
    return took;
  }

  before(async () => {
    dns = await startDnsServer({ stalledZone: STALLED });
    ({ app } = await buildTestApp({
      HERALD_DNS_SERVERS: dns.address,
      HERALD_MAX_SUBSCRIPTIONS: '1000',
      HERALD_SUBSCRIPTION_CREATES_PER_HOUR: '1000',
    }));
    const baseUrl = await listen(app);
    a = await registerIntegrator(app, baseUrl, 'integrator-a');
    b = await registerIntegrator(app, baseUrl, 'integrator-b');
  });
  after(async () => {
    await closeTestApp(app);
    await dns.close();
  });

  it("answers B's creates as fast while A keeps 50 creates on its stalled zone; each of A's is a 400 within the bound", async () => {
    await timedCreatesOfB(30); // warm-up: the first requests of a process pay for JIT and connections
    const unloaded = p99(await timedCreatesOfB(SAMPLES));

    // How long the API took over each create of A, from its arrival to its answer (the client's own delays apart).
    const servedA: number[] = [];
    app.server.on('request', (request: IncomingMessage, response: ServerResponse) => {
      if (request.headers['x-pubkey'] !== a.pubkey) return;
      const arrived = performance.now();
      response.on('finish', () => servedA.push(performance.now() - arrived));
    });
    let stop = false;
    let inFlight = 0;
    let nameOfA = 0;
    // 50 loops, each one create of A at a time to a name of the stalled zone never asked before: 50 always in flight.
    const loopsOfA = Array.from({ length: IN_FLIGHT_OF_A }, async () => {
      while (!stop) {
        inFlight += 1;
        try {
          await rejectsWith(
            a.client.createSubscription({ url: `https://a${(nameOfA += 1)}.${STALLED}/hook` }),
            400,
            'invalid_callback_url',
            /^non_public_address: the callback host a\d+\.slow\.example\.net does not resolve to a public address$/,
          );
        } finally {
          inFlight -= 1;
        }
      }
    });
    // B is measured once A's creates wait on DNS: A's first 50 answered by nobody yet, 8 of its lookups (A and AAAA
    // each) asked, and the CPU that accepting 50 signed requests takes spent: that burst is not what issue 42 is about.
    const stalledQuestions = () => dns.questions.filter((q) => q.name.endsWith(`.${STALLED}`)).length;
    const measuring = (async () => {
      while (stalledQuestions() < 16) await delay(5);
      await delay(100);
      assert.equal(servedA.length, 0, 'no create of A answered before B started');
      const loaded = p99(await timedCreatesOfB(SAMPLES));
      return { loaded, inFlightAtEnd: inFlight };
    })();
    const [measured] = await Promise.allSettled([measuring]);
    stop = true;
    // Whatever failed, A's loops end before the app closes.
    for (const outcome of [measured, ...(await Promise.allSettled(loopsOfA))])
      if (outcome?.status === 'rejected') throw outcome.reason;
    const { loaded, inFlightAtEnd } = await measuring;

    const slowestA = Math.max(...servedA);
    console.log(
      `B p99 over ${SAMPLES} creates: ${unloaded.toFixed(1)} ms alone, ${loaded.toFixed(1)} ms with ${IN_FLIGHT_OF_A} ` +
        `creates of A stalled; ${servedA.length} creates of A answered 400 in at most ${slowestA.toFixed(0)} ms`,
    );
    assert.equal(inFlightAtEnd, IN_FLIGHT_OF_A, "A's creates were all in flight while B's ran");
    // Held by A's stalled lookups, B's creates would wait out the resolver's bound (RESOLVE_BOUND_MS, seconds); a second's
    // margin keeps the check to that, not to the shared machine's noise (the fresh-clone runs saw +100 to +122 ms; the
    // figure itself is the neighbours bench's, docs/benchmarks.md).
    assert.ok(loaded <= unloaded + 1_000, `B's p99 ${loaded.toFixed(1)} ms vs ${unloaded.toFixed(1)} ms alone`);
    assert.equal(servedA.length, nameOfA);
    // The bound covers a lookup's wait for its integrator's turn too: without that, most of A's would take far longer.
    assert.ok(slowestA < RESOLVE_BOUND_MS + 1_000, `A's slowest create took ${slowestA.toFixed(0)} ms`);
    assert.equal(await app.store.subscriptions.collection.countDocuments({ integratorId: a.integratorId }), 0);
    assert.equal(
      await app.store.subscriptions.collection.countDocuments({ integratorId: b.integratorId }),
      30 + 2 * SAMPLES,
    );
  });
});
