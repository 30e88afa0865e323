// Part (b) of bench/auth.ts: the real app on loopback, one registered key, and a forked load generator that sends
// the same requests (same headers, same count, same connections) to the signed route and to the same handler
// registered outside /v1/ (so without auth), alternating rounds; and to a third copy of that handler which makes one
// signature verification of its own (no auth hooks), to tell what the verification costs inside the server from what
// the rest of authentication does.
import { credential } from '../../src/api/schemas/integrators.js';
import { parsePublicKeyHex } from '../../src/crypto/p256.js';
import { requestSigningInput, signRequest, verifyRequestSignature } from '../../src/crypto/request-signature.js';
import { createPrivateKey, type KeyObject } from 'node:crypto';
import type { LoadReply, LoadResult } from './auth-load.js';
import { ask, forkLoad, startAuthServer } from './auth-server.js';

export const AUTH_PATH = '/v1/credentials/current';
export const UNAUTH_PATH = '/bench/credentials/current';
const VERIFY_PATH = '/bench/credentials/verify';
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
  // What VERIFY_PATH verifies: a signed GET's message (same length), its signature, the key parsed as the server does.
  const check: { key?: KeyObject; msg: Buffer; signature: Buffer } = {
    msg: Buffer.alloc(0),
    signature: Buffer.alloc(0),
  };
  const server = await startAuthServer(token, (app) => {
    app.get(UNAUTH_PATH, { schema: { response: { 200: credential } } }, async () => answer);
    app.get(VERIFY_PATH, { schema: { response: { 200: credential } } }, async () => {
      if (!check.key || !verifyRequestSignature(check.key, check.msg, check.signature))
        throw new Error('bench: no verify');
      return answer;
    });
  });
  Object.assign(answer, { integratorId: server.integratorId, keyId: server.keyId, publicKey: server.pubkey });
  check.key = parsePublicKeyHex(server.pubkey).keyObject;
  check.msg = requestSigningInput(String(Math.floor(Date.now() / 1000)), 'GET', `${AUTH_PATH}?n=100000`);
  check.signature = Buffer.from(signRequest(createPrivateKey(server.privateKeyPem), check.msg).slice(2), 'hex');
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
    await round(VERIFY_PATH, 3_000);
    await round(AUTH_PATH, 3_000);
    type Kind = 'auth' | 'unauth' | 'verifyOnly';
    const results: Record<Kind, HttpFigure[]> = { auth: [], unauth: [], verifyOnly: [] };
    const paced: Record<Kind, HttpFigure[]> = { auth: [], unauth: [], verifyOnly: [] };
    for (let i = 0; i < ROUNDS; i++) {
      results.unauth.push(await round(UNAUTH_PATH, PER_ROUND));
      results.verifyOnly.push(await round(VERIFY_PATH, PER_ROUND));
      results.auth.push(await round(AUTH_PATH, PER_ROUND));
    }
    // The same offered load on both: CPU per request is then compared at the same event-loop batching (a server
    // that waits on the replay insert wakes more often per request than one that runs flat out).
    for (let i = 0; i < ROUNDS; i++) {
      paced.unauth.push(await round(UNAUTH_PATH, PACED_PER_ROUND, PACED_RATE));
      paced.verifyOnly.push(await round(VERIFY_PATH, PACED_PER_ROUND, PACED_RATE));
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
      verifyOnly: medianRound(results.verifyOnly, 'rps'),
      paced: {
        rate: PACED_RATE,
        perRound: PACED_PER_ROUND,
        auth: medianRound(paced.auth, 'cpuUsPerRequest'),
        unauth: medianRound(paced.unauth, 'cpuUsPerRequest'),
        verifyOnly: medianRound(paced.verifyOnly, 'cpuUsPerRequest'),
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
