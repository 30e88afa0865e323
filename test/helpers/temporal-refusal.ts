import assert from 'node:assert/strict';
import { buildApp } from '../../src/process/app.js';
import { createWorkerRuntime } from '../../src/process/worker-runtime.js';
import { testConfig } from './env.js';

const quiet = { info: () => {}, warn: () => {}, error: () => {} };

/** With `env`'s Temporal settings the API reports Temporal down (not ready) and the worker refuses to start. */
export async function assertTemporalRefused(env: Record<string, string>, workerError?: RegExp): Promise<void> {
  const app = await buildApp({ config: testConfig(env), logger: false });
  try {
    const ready = await app.inject({ method: 'GET', url: '/v1/health/ready' });
    assert.equal(ready.statusCode, 503);
    assert.equal(ready.json<{ checks: { temporal: string } }>().checks.temporal, 'down');
  } finally {
    await app.mongo.db.dropDatabase().catch(() => undefined);
    await app.close();
  }
  const worker = createWorkerRuntime(testConfig(env), { logger: quiet });
  await (workerError ? assert.rejects(worker, workerError) : assert.rejects(worker));
}
