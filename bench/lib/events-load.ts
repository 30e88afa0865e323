// The load generator of bench/events.ts, run as a second process so that signing and HTTP parsing do not share
// the API's event loop. Every request is signed fresh (±60 s window) and has its own query string (the server
// accepts a signed message once), by varying a far-future createdBefore bound that selects the same page.
import { createPrivateKey } from 'node:crypto';
import autocannon from 'autocannon';
import { requestSigningInput, signRequest } from '../../src/crypto/request-signature.js';

export interface LoadSpec {
  url: string;
  /** PEM private keys, one per integrator; requests rotate over them. */
  keys: Array<{ pem: string; pubkey: string }>;
  connections: number;
  durationSec: number;
  /** Far-future createdBefore base (ms); request n uses base + n. */
  farFutureMs: number;
  limit: number;
}

export interface LoadResult {
  rps: number;
  requests: number;
  non2xx: number;
  errors: number;
  p50Ms: number;
  p99Ms: number;
}

async function main(): Promise<void> {
  const spec = JSON.parse(process.env.HERALD_BENCH_LOAD ?? '') as LoadSpec;
  const keys = spec.keys.map((k) => ({ key: createPrivateKey(k.pem), pubkey: k.pubkey }));
  let n = 0;
  const result = await autocannon({
    url: spec.url,
    connections: spec.connections,
    duration: spec.durationSec,
    requests: [
      {
        method: 'GET',
        setupRequest: (req) => {
          const i = n++;
          const signer = keys[i % keys.length]!;
          const before = new Date(spec.farFutureMs + i).toISOString();
          const path = `/v1/query/events?limit=${spec.limit}&createdBefore=${before}`;
          const timestamp = String(Math.floor(Date.now() / 1000));
          return {
            ...req,
            path,
            headers: {
              'x-pubkey': signer.pubkey,
              'x-timestamp': timestamp,
              'x-signature': signRequest(signer.key, requestSigningInput(timestamp, 'GET', path)),
            },
          };
        },
      },
    ],
  });
  const out: LoadResult = {
    rps: result.requests.average,
    requests: result.requests.total,
    non2xx: result.non2xx,
    errors: result.errors,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
  };
  process.stdout.write(`${JSON.stringify(out)}\n`);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
