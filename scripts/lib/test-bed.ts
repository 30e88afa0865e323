import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeWorkflowBundle } from '../../src/temporal/workflow-bundle.js';
import { freePort, type Managed } from './processes.js';
import { ensureTools, MONGO_WIRE_POOL, startMongoWire, startTemporalDev, tools } from './servers.js';
import { createTestCa } from './test-ca.js';

export interface TestBed {
  /**
   * Environment for the processes that use the bed: MONGODB_URL, TEMPORAL_ADDRESS, HERALD_WORKFLOW_BUNDLE, and a
   * throw-away TLS CA (NODE_EXTRA_CA_CERTS) with an `*.example.com` leaf (HERALD_TEST_TLS_CERT / _KEY), …
   */
  readonly env: NodeJS.ProcessEnv;
  readonly tmp: string;
  stop(): Promise<void>;
}

/**
 * One throw-away set of servers in a temp folder: a MongoDB-wire server and a Temporal dev server on free ports
 * (each skipped when MONGODB_URL / TEMPORAL_ADDRESS is already set), and the workflows bundled once.
 */
export async function startTestBed(
  prefix = 'herald-test-',
  toolOptions: Parameters<typeof ensureTools>[0] = {},
): Promise<TestBed> {
  ensureTools(toolOptions);
  const tmp = mkdtempSync(join(tmpdir(), prefix));
  const servers: Managed[] = [];
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    HERALD_TEST_TMP: tmp,
    HERALD_TEMPORAL_TEST_SERVER: tools.temporalTestServer,
  };
  const stop = async (): Promise<void> => {
    await Promise.all(servers.map((s) => s.stop()));
    if (!process.env.HERALD_KEEP_TMP) rmSync(tmp, { recursive: true, force: true });
  };
  try {
    // Read by Node at process start, so it reaches the test processes through this env, not process.env.
    const ca = createTestCa(join(tmp, 'tls'), process.env.NODE_EXTRA_CA_CERTS);
    env.NODE_EXTRA_CA_CERTS = ca.caBundle;
    env.HERALD_TEST_TLS_CERT = ca.leafCert;
    env.HERALD_TEST_TLS_KEY = ca.leafKey;
    if (!process.env.MONGODB_URL) {
      const port = await freePort();
      servers.push(await startMongoWire({ port, dataDir: join(tmp, 'mongo'), log: join(tmp, 'mongo-wire.log') }));
      env.MONGODB_URL = `mongodb://127.0.0.1:${port}/?maxPoolSize=${MONGO_WIRE_POOL}`;
    }
    if (!process.env.TEMPORAL_ADDRESS) {
      const port = await freePort();
      servers.push(await startTemporalDev({ port, log: join(tmp, 'temporal.log') }));
      env.TEMPORAL_ADDRESS = `127.0.0.1:${port}`;
    }
    env.HERALD_WORKFLOW_BUNDLE = join(tmp, 'workflow-bundle.js');
    await writeWorkflowBundle(env.HERALD_WORKFLOW_BUNDLE);
    return { env, tmp, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
