// Shared by the tests that run the delivery workflow on the time-skipping server.
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { requireEnv } from './env.js';
import { heraldSearchAttributeTypes } from '../../src/temporal/namespace.js';

/** The time-skipping server rejects unknown search attributes; it implements OperatorService to register them. */
export async function registerSearchAttributes(env: TestWorkflowEnvironment): Promise<void> {
  await env.connection.operatorService.addSearchAttributes({
    namespace: env.namespace ?? 'default',
    searchAttributes: heraldSearchAttributeTypes,
  });
}

/**
 * Each actual offset is the expected one, plus at most `slack` seconds of real time spent in activities, and minus at
 * most `early[i]` seconds (attempt i's wait may start before the offsets count it as started).
 */
export function assertOffsets(actual: number[], expected: number[], slack = 2, early: readonly number[] = []): void {
  assert.equal(actual.length, expected.length, `offsets ${actual.join(', ')}`);
  actual.forEach((a, i) => {
    const e = expected[i] ?? Number.NaN;
    assert.ok(a >= e - (early[i] ?? 0) && a <= e + slack, `attempt ${i + 1} at +${a} s, expected +${e} s`);
  });
}

/**
 * A time-skipping server with its search attributes and a worker running the current workflow code with `activities`
 * on `taskQueue` (or those built over the server, for activities that start or signal workflows); `stop()` shuts both
 * down.
 */
export async function startTimeSkippingWorker(
  taskQueue: string,
  activities: object | ((env: TestWorkflowEnvironment) => object),
): Promise<{ env: TestWorkflowEnvironment; stop(): Promise<void> }> {
  const env = await TestWorkflowEnvironment.createTimeSkipping({
    server: { executable: { type: 'existing-path', path: requireEnv('HERALD_TEMPORAL_TEST_SERVER') } },
  });
  await registerSearchAttributes(env);
  const worker = await Worker.create({
    connection: env.nativeConnection,
    taskQueue,
    workflowsPath: fileURLToPath(new URL('../../workflows/index.ts', import.meta.url)),
    activities: typeof activities === 'function' ? activities(env) : activities,
  });
  const running = worker.run();
  return {
    env,
    async stop() {
      worker.shutdown();
      await running;
      await env.teardown();
    },
  };
}
