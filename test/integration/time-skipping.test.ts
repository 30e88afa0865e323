// Proof that the time-skipping server is real: a workflow that waits 6 hours completes in seconds, and the timer's
// duration is read from the recorded history.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { requireEnv } from '../helpers/env.js';
import { durationSeconds, eventsOfType } from '../helpers/temporal.js';

describe('time-skipping test server (real)', () => {
  let env: TestWorkflowEnvironment;

  before(async () => {
    env = await TestWorkflowEnvironment.createTimeSkipping({
      server: { executable: { type: 'existing-path', path: requireEnv('HERALD_TEMPORAL_TEST_SERVER') } },
    });
  });
  after(async () => {
    await env?.teardown();
  });

  it('completes a 6-hour wait in under 10 seconds and records a 6-hour timer', async () => {
    const worker = await Worker.create({
      connection: env.nativeConnection,
      taskQueue: 'time-skipping-proof',
      workflowsPath: fileURLToPath(new URL('../fixtures/workflows/sleeper.ts', import.meta.url)),
    });
    const sixHours = 6 * 60 * 60 * 1000;
    const started = Date.now();
    const handle = await worker.runUntil(async () => {
      const h = await env.client.workflow.start('sleeper', {
        taskQueue: 'time-skipping-proof',
        workflowId: `sleep-${started}`,
        args: [sixHours],
      });
      assert.equal(await h.result(), 'woke');
      return h;
    });
    const elapsed = Date.now() - started;
    assert.ok(elapsed < 10_000, `took ${elapsed} ms`);

    const history = await handle.fetchHistory();
    const timers = eventsOfType(history.events, 'timerStartedEventAttributes');
    assert.equal(timers.length, 1);
    assert.equal(durationSeconds(timers[0]?.timerStartedEventAttributes?.startToFireTimeout), 6 * 60 * 60);
    assert.equal(eventsOfType(history.events, 'timerFiredEventAttributes').length, 1);
  });
});
