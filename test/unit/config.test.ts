import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError, loadConfig } from '../../src/config.js';
import { apiWorkerOverrides } from '../../src/temporal/api-worker.js';
import { workerTuning } from '../../src/temporal/herald-worker.js';

describe('loadConfig', () => {
  it('applies the documented defaults', () => {
    const c = loadConfig({});
    assert.equal(c.HERALD_HOST, '127.0.0.1');
    assert.equal(c.HERALD_PORT, 3000);
    assert.equal(c.MONGODB_DB, 'herald');
    assert.equal(c.TEMPORAL_ADDRESS, '127.0.0.1:7233');
    assert.equal(c.TEMPORAL_NAMESPACE, 'default');
    assert.equal(c.TEMPORAL_TASK_QUEUE, 'herald-deliveries');
    assert.equal(c.HERALD_ADMIN_TOKEN, undefined);
    assert.deepEqual(c.HERALD_DNS_STATIC, {});
    assert.deepEqual(c.HERALD_ALLOW_CIDRS, []);
    assert.equal(
      c.HERALD_API_WORKER_SLOTS,
      0,
      'no worker in the API unless asked (docs/scale-and-size.md: it runs attempts in the API process)',
    );
    assert.ok(Object.isFrozen(c));
  });

  it('sets connection and request timeouts by default, within bounds', () => {
    const c = loadConfig({});
    assert.deepEqual([c.HERALD_CONNECTION_TIMEOUT_MS, c.HERALD_REQUEST_TIMEOUT_MS], [60_000, 30_000]);
    assert.equal(loadConfig({ HERALD_REQUEST_TIMEOUT_MS: '5000' }).HERALD_REQUEST_TIMEOUT_MS, 5_000);
    for (const [name, bad] of [
      ['HERALD_CONNECTION_TIMEOUT_MS', '0'],
      ['HERALD_REQUEST_TIMEOUT_MS', 'soon'],
    ] as const)
      assert.throws(
        () => loadConfig({ [name]: bad }),
        (err: unknown) => err instanceof ConfigError && err.message.includes(name),
      );
  });

  it('takes HERALD_API_WORKER_SLOTS from 0 (no worker in the API) to 200', () => {
    assert.equal(loadConfig({ HERALD_API_WORKER_SLOTS: '0' }).HERALD_API_WORKER_SLOTS, 0);
    for (const bad of ['-1', '201', 'many', '2.5'])
      assert.throws(
        () => loadConfig({ HERALD_API_WORKER_SLOTS: bad }),
        (err: unknown) => err instanceof ConfigError && /HERALD_API_WORKER_SLOTS/.test(err.message),
      );
  });

  it("sizes the worker's workflow cache from HERALD_WORKER_CACHED_WORKFLOWS (default 400)", () => {
    assert.equal(workerTuning(loadConfig({})).maxCachedWorkflows, 400);
    const tuned = workerTuning(loadConfig({ HERALD_WORKER_CACHED_WORKFLOWS: '2500' }));
    assert.equal(tuned.maxCachedWorkflows, 2500);
    assert.equal(tuned.nonStickyToStickyPollRatio, 0.5, 'half the workflow-task polls on the shared queue');
    for (const bad of ['-1', '100001', 'lots', '1.5'])
      assert.throws(
        () => loadConfig({ HERALD_WORKER_CACHED_WORKFLOWS: bad }),
        (err: unknown) => err instanceof ConfigError && /HERALD_WORKER_CACHED_WORKFLOWS/.test(err.message),
      );
  });

  it("runs the worker's workflow tasks on HERALD_WORKER_WORKFLOW_THREADS threads (default 1), the API's on one", () => {
    assert.equal(workerTuning(loadConfig({})).workflowThreadPoolSize, 1);
    assert.equal(workerTuning(loadConfig({ HERALD_WORKER_WORKFLOW_THREADS: '3' })).workflowThreadPoolSize, 3);
    assert.equal(apiWorkerOverrides(4).workflowThreadPoolSize, 1, "the API's few eager starts need no more");
    for (const bad of ['0', '17', 'two', '1.5'])
      assert.throws(
        () => loadConfig({ HERALD_WORKER_WORKFLOW_THREADS: bad }),
        (err: unknown) => err instanceof ConfigError && /HERALD_WORKER_WORKFLOW_THREADS/.test(err.message),
      );
  });

  it('fails fast with a message that names each bad variable', () => {
    assert.throws(
      () => loadConfig({ HERALD_PORT: 'eighty', MONGODB_URL: 'postgres://x', LOG_LEVEL: 'loud' }),
      (err: unknown) =>
        err instanceof ConfigError &&
        /HERALD_PORT/.test(err.message) &&
        /MONGODB_URL/.test(err.message) &&
        /LOG_LEVEL/.test(err.message),
    );
  });

  it('parses the static DNS map and the allowlist', () => {
    const c = loadConfig({
      HERALD_DNS_STATIC: 'Hooks.Example.com=93.184.216.34, v6.example.com=2001:db8::1|93.184.216.35',
      HERALD_ALLOW_CIDRS: '127.0.0.1/32, ::1/128',
    });
    assert.deepEqual(c.HERALD_DNS_STATIC, {
      'hooks.example.com': ['93.184.216.34'],
      'v6.example.com': ['2001:db8::1', '93.184.216.35'],
    });
    assert.deepEqual(c.HERALD_ALLOW_CIDRS, ['127.0.0.1/32', '::1/128']);
    assert.throws(() => loadConfig({ HERALD_DNS_STATIC: 'broken' }), /HERALD_DNS_STATIC/);
  });

  it('treats an empty admin token as unset and rejects a short one', () => {
    assert.equal(loadConfig({ HERALD_ADMIN_TOKEN: '' }).HERALD_ADMIN_TOKEN, undefined);
    assert.throws(() => loadConfig({ HERALD_ADMIN_TOKEN: 'short' }), /HERALD_ADMIN_TOKEN/);
  });

  it('serves the admin API on HERALD_ADMIN_PORT only when set (empty: unset), on HERALD_ADMIN_HOST', () => {
    for (const unset of [{}, { HERALD_ADMIN_PORT: '' }, { HERALD_ADMIN_PORT: '  ' }])
      assert.equal(loadConfig(unset).HERALD_ADMIN_PORT, undefined, JSON.stringify(unset));
    const set = loadConfig({ HERALD_ADMIN_PORT: '3001' });
    assert.deepEqual([set.HERALD_ADMIN_PORT, set.HERALD_ADMIN_HOST], [3001, '127.0.0.1']);
    assert.equal(loadConfig({ HERALD_ADMIN_PORT: '0', HERALD_ADMIN_HOST: '10.0.0.2' }).HERALD_ADMIN_HOST, '10.0.0.2');
    for (const bad of ['-1', '65536', 'admin', '1.5'])
      assert.throws(() => loadConfig({ HERALD_ADMIN_PORT: bad }), /HERALD_ADMIN_PORT/, bad);
  });
});
