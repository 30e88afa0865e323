// Part (b) of bench/auth.ts: the real app on loopback, one registered key, and a forked load generator that sends
// the same requests (same headers, same count, same connections) to the signed route and to the same handler
// registered outside /v1/ (so without auth), alternating rounds.
import { fork, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { buildApp } from '../../src/app.js';
import { credential } from '../../src/api/schemas/integrators.js';
import { loadConfig } from '../../src/config.js';
import { compressedHexOf, generateP256Key } from '../../src/crypto/p256.js';
import { LOAD_CHANNEL, type LoadCommand, type LoadReply, type LoadResult } from './auth-load.js';

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

/** Sends a command and waits for the generator's reply (tsx's loader sends its own IPC messages: skipped). */
function ask(child: ChildProcess, cmd: LoadCommand): Promise<LoadReply> {
  return new Promise((resolve, reject) => {
    const onMessage = (msg: Partial<LoadReply> | { type: 'error'; channel: string; message: string }) => {
      if (msg.channel !== LOAD_CHANNEL) return;
      child.off('message', onMessage);
      child.off('exit', onExit);
      if (msg.type === 'error') reject(new Error(`load generator: ${(msg as { message: string }).message}`));
      else resolve(msg as LoadReply);
    };
    const onExit = (code: number | null) => reject(new Error(`load generator exited (${code})`));
    child.on('message', onMessage);
    child.once('exit', onExit);
    child.send(cmd);
  });
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

export async function measureHttp({ token }: { token: string }) {
  const config = loadConfig({
    ...process.env,
    MONGODB_DB: `bench_auth_${randomBytes(4).toString('hex')}`,
    HERALD_ADMIN_TOKEN: token,
    HERALD_MASTER_KEY: randomBytes(32).toString('base64'),
    HERALD_CURSOR_SECRET: randomBytes(32).toString('base64'),
    // One integrator loads the API far beyond its default request budget: the bench measures the route, not 429s.
    HERALD_RATE_LIMIT_PER_SECOND: '1000000',
    HERALD_RATE_LIMIT_BURST: '1000000',
    // Metrics on, as in production, on a free port (never a running instance's).
    HERALD_METRICS_PORT: '0',
  });
  const app = await buildApp({ config });
  const child = fork(fileURLToPath(new URL('./auth-load.ts', import.meta.url)), {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  // The same answer (same schema and size) from a route the integrator guard does not cover; filled in below.
  const answer = { integratorId: '', keyId: '', publicKey: '' };
  app.get(UNAUTH_PATH, { schema: { response: { 200: credential } } }, async () => answer);
  try {
    const privateKey = generateP256Key();
    const pubkey = `0x${compressedHexOf(privateKey)}`;
    const admin = { authorization: `Bearer ${token}` };
    const integrator = await app.inject({
      method: 'POST',
      url: '/internal/v1/integrators',
      headers: admin,
      payload: { name: 'bench' },
    });
    const integratorId = integrator.json<{ id: string }>().id;
    const added = await app.inject({
      method: 'POST',
      url: `/internal/v1/integrators/${integratorId}/keys`,
      headers: admin,
      payload: { publicKey: pubkey },
    });
    Object.assign(answer, { integratorId, keyId: added.json<{ id: string }>().id, publicKey: pubkey });
    await app.listen({ host: '127.0.0.1', port: 0 });
    const address = app.server.address();
    if (!address || typeof address === 'string') throw new Error('no address');

    await ask(child, {
      type: 'init',
      baseUrl: `http://127.0.0.1:${address.port}`,
      privateKeyPem: privateKey.export({ format: 'pem', type: 'pkcs8' }) as string,
      pubkey,
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
    await app.mongo.db.dropDatabase().catch(() => undefined);
    await app.close();
  }
}
