// The neighbours bench's slow-DNS mode (bench/neighbours.ts --slowDnsMs): integrator A's callback zone answers after
// --slowDnsMs through a DNS server of the bench's own on loopback (HERALD_DNS_SERVERS), past the resolver's bound, so
// each of A's attempts is that delivery's own resolution failing; A also keeps creates to names of that zone in flight
// through the signed API. B's creates (to names of a prompt zone) are timed before and during that load. No request
// leaves loopback: A's zone never answers with an address, and B's created subscriptions take only an event type no one can
// publish (SUBSCRIBABLE_ONLY_TYPE).
import type { FastifyInstance } from 'fastify';
import type { Db } from 'mongodb';
import { HeraldClient } from '../../src/client/herald-client.js';
import type { HeraldAdminClient } from '../../src/client/admin-client.js';
import { compressedHexOf, generateP256Key } from '../../src/crypto/p256.js';
import { SUBSCRIBABLE_ONLY_TYPE } from '../../src/domain/event-types.js';
import type { DeliveryDoc } from '../../src/store/documents.js';
import { startDnsServer, type TestDnsServer } from '../../test/helpers/dns-server.js';
import { quantile } from './stats.js';

export const SLOW_ZONE = 'slow.example.net';
const FAST_ZONE = 'fast.example.org';
/** A public address B's names resolve to; nothing is ever sent to it (see above). */
const PUBLIC_V4 = '93.184.216.34';

/** The bench's DNS server: A's zone stalls `stallMs` and then answers NXDOMAIN; B's names answer at once. */
export async function startSlowZone(stallMs: number): Promise<TestDnsServer> {
  return await startDnsServer({ stalledZone: SLOW_ZONE, stallMs });
}

/** A signing client for `integratorId` (a fresh key added through the admin API). */
export async function signedClient(
  admin: HeraldAdminClient,
  app: FastifyInstance,
  integratorId: string,
): Promise<HeraldClient> {
  const privateKey = generateP256Key();
  await admin.addKey(integratorId, `0x${compressedHexOf(privateKey)}`);
  const address = app.server.address();
  if (!address || typeof address === 'string') throw new Error('the API does not listen');
  return new HeraldClient({ baseUrl: `http://127.0.0.1:${address.port}`, privateKey, maxRetries: 0 });
}

let nextName = 0;
/** `count` creates of B, one at a time, each to a new name of the prompt zone; how long each took (ms). */
export async function timedCreates(dns: TestDnsServer, b: HeraldClient, count: number): Promise<number[]> {
  const took: number[] = [];
  for (let i = 0; i < count; i += 1) {
    const name = `b${(nextName += 1)}.${FAST_ZONE}`;
    dns.set(name, [PUBLIC_V4]);
    const started = performance.now();
    await b.createSubscription({ url: `https://${name}/hook`, eventTypes: [SUBSCRIBABLE_ONLY_TYPE] });
    took.push(performance.now() - started);
  }
  return took;
}

/** Keeps `inFlight` creates of A to new names of the stalled zone in flight until `stop()`; counts their answers. */
export function stalledCreates(a: HeraldClient, inFlight: number, stop: () => boolean) {
  const answers = new Map<string, number>();
  const loops = Array.from({ length: inFlight }, async () => {
    while (!stop()) {
      const url = `https://a${(nextName += 1)}.${SLOW_ZONE}/hook`;
      const status = await a.createSubscription({ url }).then(
        () => '201',
        (err: unknown) => String((err as { status?: number }).status ?? 'network'),
      );
      answers.set(status, (answers.get(status) ?? 0) + 1);
    }
  });
  return { answers, done: Promise.all(loops) };
}

export const p99 = (samples: readonly number[]): number => Math.round(quantile(samples, 0.99));

/** Of the deliveries `ids`, their recorded attempts by outcome (and error, when there is one). */
export async function attemptOutcomes(db: Db, ids: readonly string[]): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (let i = 0; i < ids.length; i += 200) {
    const docs = await db
      .collection<DeliveryDoc>('deliveries')
      .find({ _id: { $in: ids.slice(i, i + 200) } })
      .toArray();
    for (const attempt of docs.flatMap((doc) => Object.values(doc.attempts ?? {}))) {
      const key = attempt.error === null ? attempt.outcome : `${attempt.outcome}: ${attempt.error}`;
      counts[key] = (counts[key] ?? 0) + 1;
    }
  }
  return counts;
}
