// The worker process (src/process/worker.ts) forwards the Temporal SDK's Rust core lines into its logger: a core
// warning about a delivery's workflow task ([TMPRL1104], every task once its threshold is 0 s) is a JSON line at pino's
// warn level with the delivery's five ids, and the process's output holds no secret.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { deliveryWorkflowId } from '../../workflows/messages.js';
import { envOf, reap, spawnHerald, type HeraldChild } from '../helpers/child-process.js';
import { eventually } from '../helpers/deliveries.js';
import { startDeliveryStack, type DeliveryStack } from '../helpers/delivery-stack.js';
import { ADMIN_TOKEN } from '../helpers/integrators.js';

/** Time for a child worker to start (tsx, bundle, connections) and deliver on a loaded machine. */
const START_MS = 90_000;
const PINO_WARN = 40;

describe('worker process: the Temporal core lines', { timeout: 240_000 }, () => {
  let s: DeliveryStack;
  let child: HeraldChild | undefined;
  before(async () => {
    s = await startDeliveryStack({ inProcessWorker: false });
  });
  after(async () => {
    await reap(child);
    await s?.stop();
  });

  it('carry the delivery’s five ids at their level, as JSON lines without secrets', async () => {
    const subscription = await s.subscribe('/core-logs');
    child = spawnHerald(
      'worker',
      envOf(s.workerConfig, {
        HERALD_WORKER_METRICS_PORT: 'off',
        HERALD_TEMPORAL_METRICS_PORT: 'off',
        LOG_LEVEL: 'warn',
        TEMPORAL_WORKFLOW_TASK_DURATION_WARN_SECONDS: '0',
      }),
    );
    const eventId = await s.publish();
    const delivery = await eventually(async () => {
      const [d] = await s.deliveriesOf(eventId, subscription.id);
      return d?.status === 'succeeded' ? d : undefined;
    }, START_MS);
    const { runId } = await s.app.temporal.client.workflow.getHandle(deliveryWorkflowId(delivery.id)).describe();
    child.child.kill('SIGTERM'); // its last lines are flushed on the way out
    const exit = await child.exited;
    const output = child.output();
    assert.equal(exit.code, 0, output);

    const lines = output.split('\n').filter((l) => l.trim() !== '');
    const parsed = lines.map((line) => {
      try {
        return JSON.parse(line) as Record<string, unknown>;
      } catch {
        return assert.fail(`a line that is not JSON (the core printing to stderr?): ${line}`);
      }
    });
    const core = parsed.filter((l) => l.sdkComponent === 'core' && String(l.msg).startsWith(`[TMPRL1104] ${runId}:`));
    assert.ok(core.length >= 1, `a core line about the delivery's run in:\n${output.slice(0, 2000)}`);
    for (const line of core) {
      assert.equal(line.level, PINO_WARN, JSON.stringify(line));
      assert.deepEqual(
        [line.deliveryId, line.eventId, line.subscriptionId, line.integratorId, line.attemptNumber],
        [delivery.id, eventId, subscription.id, s.alice.integratorId, 1],
        JSON.stringify(line),
      );
      // The core's own `eventId` (the workflow task's history event) is kept beside Herald's.
      assert.equal(typeof line.coreEventId, 'number', JSON.stringify(line));
    }

    const config = s.workerConfig;
    const signatures = s.requestsTo('/core-logs').map((r) => String(r.headers['x-service-webhook-signature']));
    assert.ok(signatures.length >= 1);
    for (const secret of [ADMIN_TOKEN, config.HERALD_MASTER_KEY!, config.HERALD_CURSOR_SECRET!, ...signatures])
      assert.ok(!output.includes(secret), 'a secret in the worker output');
  });
});
