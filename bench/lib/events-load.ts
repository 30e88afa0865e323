// The load generator of bench/events.ts, run as a second process so that signing and HTTP parsing do not share
// the API's event loop. Every request is signed fresh (±60 s window) and has its own query string (the server
// accepts a signed message once): the parent prepares the paths, each with its own far-past createdAfter bound
// that selects the same page (and a cursor issued for exactly those filters).
import { createPrivateKey } from 'node:crypto';
import { readFileSync } from 'node:fs';
import autocannon from 'autocannon';
import { requestSigningInput, signRequest } from '../../src/crypto/request-signature.js';

export interface LoadSpec {
  url: string;
  /** The PEM private key of the integrator whose history is listed. */
  key: { pem: string; pubkey: string };
  connections: number;
  durationSec: number;
  /** One distinct path per request; the load stops when they run out. */
  paths: string[];
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
  const spec = JSON.parse(readFileSync(process.env.HERALD_BENCH_LOAD_FILE ?? '', 'utf8')) as LoadSpec;
  const signer = { key: createPrivateKey(spec.key.pem), pubkey: spec.key.pubkey };
  let n = 0;
  const result = await autocannon({
    url: spec.url,
    connections: spec.connections,
    duration: spec.durationSec,
    requests: [
      {
        method: 'GET',
        setupRequest: (req) => {
          const path = spec.paths[n++];
          if (path === undefined) throw new Error(`only ${spec.paths.length} paths prepared: raise their number`);
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
