// Proof that the Temporal dev server is real: a workflow calls one activity through a real worker, and the test
// reads the recorded history back from the server.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import { bareActivities, bareWorkflow } from '../../bench/bare-workflow.js';
import { testConfig } from '../helpers/env.js';
import { eventsOfType } from '../helpers/temporal.js';

describe('Temporal dev server (real)', () => {
  const config = testConfig();
  let connection: Connection;
  let native: NativeConnection;
  let worker: Worker;
  let running: Promise<void>;

  before(async () => {
    connection = await Connection.connect({ address: config.TEMPORAL_ADDRESS });
    native = await NativeConnection.connect({ address: config.TEMPORAL_ADDRESS });
    worker = await Worker.create({
      connection: native,
      namespace: config.TEMPORAL_NAMESPACE,
      taskQueue: config.TEMPORAL_TASK_QUEUE,
      workflowsPath: fileURLToPath(new URL('../../bench/bare-workflow.ts', import.meta.url)),
      activities: bareActivities,
    });
    running = worker.run();
  });
  after(async () => {
    worker.shutdown();
    await running;
    await native.close();
    await connection.close();
  });

  it('runs a workflow with one activity to completion and records it in the history', async () => {
    const client = new Client({ connection, namespace: config.TEMPORAL_NAMESPACE });
    const workflowId = `proof-${Date.now()}-${Math.random().toString(36).slice(2)}`;
    const handle = await client.workflow.start(bareWorkflow, {
      taskQueue: config.TEMPORAL_TASK_QUEUE,
      workflowId,
      args: ['ping'],
    });
    assert.equal(await handle.result(), 'ping');

    const history = await handle.fetchHistory();
    const scheduled = eventsOfType(history.events, 'activityTaskScheduledEventAttributes');
    assert.equal(scheduled.length, 1);
    assert.equal(scheduled[0]?.activityTaskScheduledEventAttributes?.activityType?.name, 'noop');
    assert.equal(eventsOfType(history.events, 'activityTaskCompletedEventAttributes').length, 1);
    assert.equal(eventsOfType(history.events, 'workflowExecutionCompletedEventAttributes').length, 1);
    const description = await handle.describe();
    assert.equal(description.status.name, 'COMPLETED');
  });
});
