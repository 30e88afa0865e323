// The chaos run's processes, each one it can kill -9 and that comes back on the same port and data: the
// MongoDB-wire server, Temporal (bench/lib/chaos-temporal.ts: a dev server or a cluster of its own, or an external
// server it cannot kill), the API and two workers, all on loopback.
import { join } from 'node:path';
import { loadConfig, type Config } from '../../src/config.js';
import { writeWorkflowBundle } from '../../src/temporal/workflow-bundle.js';
import { freePort, spawnManaged, waitForPort } from '../../scripts/lib/processes.js';
import { ensureTools, MONGO_WIRE_POOL, root, startMongoWire } from '../../scripts/lib/servers.js';
import { createTestCa } from '../../scripts/lib/test-ca.js';
import type { ChaosTemporalChoice } from './chaos-mode.js';
import { chaosTemporal, type ChaosTemporal } from './chaos-temporal.js';
import { benchEnv } from './stack.js';
import { supervised, type Supervised } from './supervised.js';

export interface ChaosStack {
  readonly env: ReturnType<typeof benchEnv>;
  readonly config: Config;
  readonly apiPort: number;
  readonly mongo: Supervised;
  readonly temporal: ChaosTemporal;
  readonly api: Supervised;
  readonly workers: readonly Supervised[];
}

/** Declares the processes (none started yet) with their data and logs in `tmp`; sets the receiver's certificate. */
export async function chaosStack(
  tmp: string,
  temporalChoice: ChaosTemporalChoice,
  workerCount = 2,
): Promise<ChaosStack> {
  ensureTools();
  const ca = createTestCa(join(tmp, 'tls'), process.env.NODE_EXTRA_CA_CERTS);
  process.env.HERALD_TEST_TLS_CERT = ca.leafCert; // the receiver's certificate (test/helpers/receiver.ts)
  process.env.HERALD_TEST_TLS_KEY = ca.leafKey;
  const [mongoPort, apiPort] = [await freePort(), await freePort()];
  const temporal = await chaosTemporal(temporalChoice, tmp);
  const bundlePath = join(tmp, 'workflow-bundle.js');
  await writeWorkflowBundle(bundlePath);
  const env = benchEnv({
    NODE_ENV: 'production',
    NODE_EXTRA_CA_CERTS: ca.caBundle,
    MONGODB_URL: `mongodb://127.0.0.1:${mongoPort}/?maxPoolSize=${MONGO_WIRE_POOL}`,
    TEMPORAL_ADDRESS: temporal.address,
    HERALD_WORKFLOW_BUNDLE: bundlePath,
    HERALD_HOST: '127.0.0.1',
    HERALD_PORT: String(apiPort),
    HERALD_CURSOR_SECRET: 'chaos-cursor-secret-0123456789abcdef',
    // Several processes of one kind at once: no fixed scrape ports.
    HERALD_METRICS_PORT: 'off',
    HERALD_WORKER_METRICS_PORT: 'off',
    HERALD_TEMPORAL_METRICS_PORT: 'off',
  });
  const node = (script: string): [string, string[]] => [process.execPath, ['--import', 'tsx', join(root, script)]];
  const log = (name: string) => join(tmp, `${name}.log`);
  return {
    env,
    config: loadConfig(env),
    apiPort,
    mongo: supervised('mongo-wire', () =>
      startMongoWire({ port: mongoPort, dataDir: join(tmp, 'mongo'), log: log('mongo-wire') }),
    ),
    temporal,
    api: supervised('api', async () => {
      const proc = spawnManaged('api', ...node('src/process/server.ts'), { env, cwd: root, log: log('api') });
      await waitForPort(apiPort, 'the API', proc.child);
      return proc;
    }),
    workers: Array.from({ length: workerCount }, (_, i) =>
      supervised(`worker-${i + 1}`, () =>
        Promise.resolve(
          spawnManaged(`worker-${i + 1}`, ...node('src/process/worker.ts'), {
            env,
            cwd: root,
            log: log(`worker-${i + 1}`),
          }),
        ),
      ),
    ),
  };
}
