import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError, loadConfig } from '../../src/config.js';
import { createWorkerRuntime } from '../../src/worker-runtime.js';

describe('worker start-up', () => {
  it('refuses to start without a configured master key (it could not open the keys the API sealed)', async () => {
    const config = loadConfig({ NODE_ENV: 'development', MONGODB_URL: 'mongodb://127.0.0.1:1/' });
    await assert.rejects(
      createWorkerRuntime(config),
      (err: unknown) => err instanceof ConfigError && /worker needs HERALD_MASTER_KEY/.test(err.message),
    );
  });
});
