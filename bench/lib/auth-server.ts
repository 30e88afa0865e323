// The server side of bench/auth.ts's HTTP parts: the real app with one registered key, listening on loopback, and the
// load generators (bench/lib/auth-load.ts) it drives over IPC, each in a process of its own.
import { fork, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/process/app.js';
import { loadConfig } from '../../src/config.js';
import { compressedHexOf, generateP256Key } from '../../src/crypto/p256.js';
import type { MongoOptions } from '../../src/store/mongo.js';
import { LOAD_CHANNEL, type LoadCommand, type LoadReply } from './auth-load.js';

/** Sends a command and waits for the generator's reply (tsx's loader sends its own IPC messages: skipped). */
export function ask(child: ChildProcess, cmd: LoadCommand): Promise<LoadReply> {
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

export interface AuthBenchServer {
  app: FastifyInstance;
  baseUrl: string;
  privateKeyPem: string;
  /** `0x` + compressed hex of the one registered key. */
  pubkey: string;
  integratorId: string;
  keyId: string;
  close(): Promise<void>;
}

/**
 * The real app (metrics on, a database of its own) with one integrator and one key registered, listening on loopback.
 * `setup` runs before the app is ready (to add routes).
 */
export async function startAuthServer(
  token: string,
  setup?: (app: FastifyInstance) => void,
  mongoOptions?: MongoOptions,
  /** More configuration, over the bench's (e.g. a small request budget). */
  env: Record<string, string> = {},
): Promise<AuthBenchServer> {
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
    ...env,
  });
  const app = await buildApp({ config, ...(mongoOptions ? { mongoOptions } : {}) });
  const close = async () => {
    await app.mongo.db.dropDatabase().catch(() => undefined);
    await app.close();
  };
  try {
    setup?.(app);
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
    await app.listen({ host: '127.0.0.1', port: 0 });
    const address = app.server.address();
    if (!address || typeof address === 'string') throw new Error('no address');
    const privateKeyPem = privateKey.export({ format: 'pem', type: 'pkcs8' }) as string;
    const keyId = added.json<{ id: string }>().id;
    const baseUrl = `http://127.0.0.1:${address.port}`;
    return { app, baseUrl, privateKeyPem, pubkey, integratorId, keyId, close };
  } catch (err) {
    await close();
    throw err;
  }
}

/** A load generator (bench/lib/auth-load.ts) in a process of its own. */
export const forkLoad = (): ChildProcess =>
  fork(fileURLToPath(new URL('./auth-load.ts', import.meta.url)), {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
