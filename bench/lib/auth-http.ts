// Part (b) of bench/auth.ts: the real app on loopback, one registered key, and a forked load generator that sends
// the same requests (same headers, same count, same connections) to the signed route and to the same handler
// registered outside /v1/ (so without auth), alternating rounds.
import { credential } from '../../src/api/schemas/integrators.js';
import type { LoadReply, LoadResult } from './auth-load.js';
import { ask, forkLoad, startAuthServer } from './auth-server.js';

export const AUTH_PATH = '/v1/credentials/current';
export const UNAUTH_PATH = '/bench/credentials/current';
const CONNECTIONS = 32;
const PER_ROUND = 20_000;
const ROUNDS = 3;
const MAX_ROUND_MS = 20_000;
/** The equal offered load of the paced rounds: below what the signed route serves on this box when loaded. */
export const PACED_RATE = 800;
const PACED_PER_ROUND = 4_000;

export interface HttpFigure {
  path: string;
  rps: number;
  /** Busy share of one core in the server process (this one) and in the load generator. */
  serverCpu: number;
  clientCpu: number;
  /** Server CPU time (all its threads) per request, µs: the cost of a request that contention on the box hides least. */
  cpuUsPerRequest: number;
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

export async function measureHttp({ token }: { token: string }) {
  // The same answer (same schema and size) from a route the integrator guard does not cover; filled in below.
  const answer = { integratorId: '', keyId: '', publicKey: '' };
  const server = await startAuthServer(token, (app) =>
    app.get(UNAUTH_PATH, { schema: { response: { 200: credential } } }, async () => answer),
  );
  Object.assign(answer, { integratorId: server.integratorId, keyId: server.keyId, publicKey: server.pubkey });
  const child = forkLoad();
  try {
    await ask(child, {
      type: 'init',
      baseUrl: server.baseUrl,
      privateKeyPem: server.privateKeyPem,
      pubkey: server.pubkey,
      connections: CONNECTIONS,
    });
    const round = async (path: string, count: number, rate?: number): Promise<HttpFigure> => {
      await ask(child, { type: 'prepare', count, signedPath: AUTH_PATH });
      const cpu = process.cpuUsage();
      const res = (await ask(child, {
        type: 'run',
        path,
        maxMs: MAX_ROUND_MS,
        ...(rate ? { rate } : {}),
      })) as LoadResult & LoadReply;
      const used = process.cpuUsage(cpu);
      const bad = Object.entries(res.statuses).filter(([status]) => status !== '200');
      if (bad.length > 0) throw new Error(`${path}: non-200 answers ${JSON.stringify(res.statuses)}`);
      const serverCpu = (used.user + used.system) / 1000 / res.ms;
      const cpuUsPerRequest = (used.user + used.system) / res.sent;
      return { path, rps: res.sent / (res.ms / 1000), serverCpu, clientCpu: res.clientCpuMs / res.ms, cpuUsPerRequest };
    };
    // Warm-up (JIT, connections, key cache), not counted.
    await round(UNAUTH_PATH, 3_000);
    await round(AUTH_PATH, 3_000);
    const results: Record<'auth' | 'unauth', HttpFigure[]> = { auth: [], unauth: [] };
    const paced: Record<'auth' | 'unauth', HttpFigure[]> = { auth: [], unauth: [] };
    for (let i = 0; i < ROUNDS; i++) {
      results.unauth.push(await round(UNAUTH_PATH, PER_ROUND));
      results.auth.push(await round(AUTH_PATH, PER_ROUND));
    }
    // The same offered load on both: CPU per request is then compared at the same event-loop batching (a server
    // that waits on the replay insert wakes more often per request than one that runs flat out).
    for (let i = 0; i < ROUNDS; i++) {
      paced.unauth.push(await round(UNAUTH_PATH, PACED_PER_ROUND, PACED_RATE));
      paced.auth.push(await round(AUTH_PATH, PACED_PER_ROUND, PACED_RATE));
    }
    /** The round whose figure `by` is the median of the rounds'. */
    const medianRound = (xs: HttpFigure[], by: 'rps' | 'cpuUsPerRequest'): HttpFigure => {
      const m = median(xs.map((x) => x[by]));
      return xs.find((x) => x[by] === m)!;
    };
    return {
      auth: medianRound(results.auth, 'rps'),
      unauth: medianRound(results.unauth, 'rps'),
      paced: {
        rate: PACED_RATE,
        perRound: PACED_PER_ROUND,
        auth: medianRound(paced.auth, 'cpuUsPerRequest'),
        unauth: medianRound(paced.unauth, 'cpuUsPerRequest'),
      },
      connections: CONNECTIONS,
      perRound: PER_ROUND,
      rounds: ROUNDS,
    };
  } finally {
    child.kill();
    await server.close();
  }
}
