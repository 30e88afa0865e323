import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError, loadConfig } from '../../src/config.js';
import { createWorkerRuntime } from '../../src/process/worker-runtime.js';

describe('worker start-up', () => {
  it("refuses to start without a configured master key, even with the API's ephemeral opt-in", async () => {
    const base = { NODE_ENV: 'development', MONGODB_URL: 'mongodb://127.0.0.1:1/' } as const;
    await assert.rejects(
      createWorkerRuntime(loadConfig(base)),
      (err: unknown) => err instanceof ConfigError && /HERALD_MASTER_KEY: required/.test(err.message),
    );
    // A per-process key could not open the keys the API sealed.
    await assert.rejects(
      createWorkerRuntime(loadConfig({ ...base, HERALD_INSECURE_EPHEMERAL_MASTER_KEY: '1' })),
      (err: unknown) => err instanceof ConfigError && /worker needs HERALD_MASTER_KEY/.test(err.message),
    );
  });
});
