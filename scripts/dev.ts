// `npm run dev`: the whole stack on this machine — installs missing tools, starts the Temporal dev server (state in
// .data/temporal.db, UI on 8233, Herald's search attributes registered) and the MongoDB-wire server (.data/mongo,
// 127.0.0.1:27017) unless TEMPORAL_ADDRESS / MONGODB_URL name servers to use instead, then the worker and the API.
// Ctrl-C stops everything; a second run reuses .data/.
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { freePort, portOpen, spawnManaged, waitForPort, type Managed } from './lib/processes.js';
import { ensureTools, MONGO_WIRE_POOL, root, startMongoWire, startTemporalDev } from './lib/servers.js';
import { createTestCa } from './lib/test-ca.js';
import { buildPortal } from './lib/portal.js';
import { DEFAULT_LISTEN_PORT, devListenerEnv, devTlsFiles, LISTEN_HOST } from '../src/cli/listen/dev-listener.js';
import { loadConfig } from '../src/config.js';

const data = join(root, '.data');

/** A secret kept in .data/ across runs, created on first use (mode 0600). */
function localSecret(name: string, make: () => string): string {
  const path = join(data, name);
  if (!existsSync(path)) writeFileSync(path, make(), { mode: 0o600 });
  return readFileSync(path, 'utf8').trim();
}

/** A port of a local server: its default, or the HERALD_DEV_… override (a shared machine, a second checkout). */
const devPort = (name: string, fallback: number): number => Number(process.env[name] ?? fallback);

/**
 * Where the API's and the worker's `/metrics` will be. A `0` becomes a free port chosen here and written into `env`,
 * so that the address printed is the one they bind.
 */
async function metricsAddresses(env: NodeJS.ProcessEnv): Promise<{ api: string; worker: string }> {
  const config = loadConfig(env);
  const host = config.HERALD_METRICS_HOST.includes(':')
    ? `[${config.HERALD_METRICS_HOST}]`
    : config.HERALD_METRICS_HOST;
  const address = async (name: 'HERALD_METRICS_PORT' | 'HERALD_WORKER_METRICS_PORT'): Promise<string> => {
    if (config[name] === null) return `off (${name})`;
    if (config[name] === 0) env[name] = String(await freePort());
    return `http://${host}:${env[name] ?? config[name]}/metrics`;
  };
  return { api: await address('HERALD_METRICS_PORT'), worker: await address('HERALD_WORKER_METRICS_PORT') };
}

/** The local CA and `herald listen` certificate in .data/tls/ (90 days; made again when missing or past 60). */
function ensureDevTls(): void {
  const files = devTlsFiles(data);
  const ageDays = existsSync(files.cert) ? (Date.now() - statSync(files.cert).mtimeMs) / 86_400_000 : Infinity;
  if (ageDays > 60) createTestCa(files.dir, process.env.NODE_EXTRA_CA_CERTS, 90);
}

async function main(): Promise<void> {
  ensureTools();
  buildPortal(); // the API serves the portal's page from dist/portal
  mkdirSync(data, { recursive: true, mode: 0o700 });
  const procs: Managed[] = [];
  let stopping = false;
  const stopAll = async (code: number): Promise<never> => {
    if (!stopping) {
      stopping = true;
      console.log('\nherald dev: stopping…');
      for (const p of [...procs].reverse()) await p.stop();
      console.log('herald dev: stopped');
    }
    process.exit(code);
  };
  process.on('SIGINT', () => void stopAll(0));
  process.on('SIGTERM', () => void stopAll(0));

  try {
    ensureDevTls();
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      // Deliveries may reach `herald listen` on 127.0.0.1, and nothing wider (src/cli/listen/dev-listener.ts).
      ...devListenerEnv(process.env, data),
      HERALD_CURSOR_SECRET:
        process.env.HERALD_CURSOR_SECRET ?? localSecret('cursor.secret', () => randomBytes(32).toString('base64')),
      HERALD_ADMIN_TOKEN:
        process.env.HERALD_ADMIN_TOKEN ?? localSecret('admin.token', () => randomBytes(24).toString('base64url')),
    };
    if (!process.env.HERALD_MASTER_KEY && !process.env.HERALD_MASTER_KEY_FILE) {
      localSecret('master.key', () => randomBytes(32).toString('base64'));
      env.HERALD_MASTER_KEY_FILE = join(data, 'master.key');
    }

    if (!process.env.MONGODB_URL) {
      const mongoPort = devPort('HERALD_DEV_MONGO_PORT', 27017);
      if (await portOpen(mongoPort))
        throw new Error(
          `port ${mongoPort} is taken: stop that server, set HERALD_DEV_MONGO_PORT, or MONGODB_URL to use it`,
        );
      procs.push(
        await startMongoWire({ port: mongoPort, dataDir: join(data, 'mongo'), log: join(data, 'mongo-wire.log') }),
      );
      env.MONGODB_URL = `mongodb://127.0.0.1:${mongoPort}/?maxPoolSize=${MONGO_WIRE_POOL}`;
    }
    let temporalUi: string | undefined;
    if (!process.env.TEMPORAL_ADDRESS) {
      const temporalPort = devPort('HERALD_DEV_TEMPORAL_PORT', 7233);
      const uiPort = devPort('HERALD_DEV_TEMPORAL_UI_PORT', 8233);
      if (await portOpen(temporalPort))
        throw new Error(
          `port ${temporalPort} is taken: stop that server, set HERALD_DEV_TEMPORAL_PORT, or TEMPORAL_ADDRESS to use it`,
        );
      procs.push(
        await startTemporalDev({
          port: temporalPort,
          uiPort,
          dbFile: join(data, 'temporal.db'),
          log: join(data, 'temporal.log'),
        }),
      );
      env.TEMPORAL_ADDRESS = `127.0.0.1:${temporalPort}`;
      temporalUi = `http://127.0.0.1:${uiPort}`;
    }

    const metrics = await metricsAddresses(env);
    const tsx = ['--import', 'tsx'];
    const worker = spawnManaged('worker', process.execPath, [...tsx, join(root, 'src/process/worker.ts')], { env });
    procs.push(worker);
    const api = spawnManaged('api', process.execPath, [...tsx, join(root, 'src/process/server.ts')], { env });
    procs.push(api);
    const port = Number(env.HERALD_PORT ?? 3000);
    const host = env.HERALD_HOST ?? '127.0.0.1';
    await waitForPort(port, 'the API', api.child, 60_000);
    for (const p of [worker, api])
      p.child.once(
        'exit',
        (code) => void (stopping || (console.error(`herald dev: ${p.name} exited (${code})`), stopAll(1))),
      );

    console.log(`
herald dev is up
  API          http://${host}:${port}/v1/health/ready
  API docs     http://${host}:${port}/docs   (OpenAPI: /openapi.json)
  /metrics     API ${metrics.api}, worker ${metrics.worker}
  Temporal UI  ${temporalUi ?? `(external Temporal at ${env.TEMPORAL_ADDRESS})`}
  MongoDB      ${env.MONGODB_URL}
  admin token  ${process.env.HERALD_ADMIN_TOKEN ? '(from HERALD_ADMIN_TOKEN)' : '.data/admin.token'}
  listen       npx herald init && npx herald listen --test   (deliveries to https://${LISTEN_HOST}:${DEFAULT_LISTEN_PORT}/ reach it)
Ctrl-C stops everything; data stays in .data/.`);
  } catch (err) {
    console.error(`herald dev: ${err instanceof Error ? err.message : String(err)}`);
    await stopAll(1);
  }
}

void main();
