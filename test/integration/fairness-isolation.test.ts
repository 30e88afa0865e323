// Isolation between endpoints with task-queue fairness turned on (issue 32; off by default, docs/temporal-cluster.md
// "Task-queue fairness"): every workflow of a subscription carries its id as the task queue's fairness key
// (workflows/start-options.ts) and a server with `matching.enableFairness` dispatches backlogged tasks round-robin
// across keys. Here, on a dev server of its own with fairness on, a worker with two attempt slots, one slow endpoint
// with a backlog of attempts, and one healthy endpoint: the healthy one's delivery takes the next free slot instead of
// queueing behind the whole backlog, as it does in one FIFO queue.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, type Managed } from '../../scripts/lib/processes.js';
import { startTemporalDev } from '../../scripts/lib/servers.js';
import { deliveryWorkflowId } from '../../workflows/messages.js';
import { deliveryIdOf } from '../../src/store/derived-ids.js';
import { publishBehindBacklog } from '../helpers/behind-backlog.js';
import { eventually } from '../helpers/deliveries.js';
import { startDeliveryStack, type DeliveryStack } from '../helpers/delivery-stack.js';

const SLOW_MS = 2_500;
const BACKLOG = 8;

describe('fairness between subscriptions', () => {
  let stack: DeliveryStack;
  let temporal: Managed;
  const tmp = mkdtempSync(join(tmpdir(), 'herald-fairness-'));
  before(async () => {
    const port = await freePort();
    temporal = await startTemporalDev({
      port,
      log: join(tmp, 'temporal.log'),
      dynamicConfig: ['matching.enableFairness=true'],
    });
    // The dev server has one partition for every queue: fairness is exact within a partition only.
    // One integrator's two subscriptions: its share of the slots (src/net/attempt-gate.ts) is not what is tested here.
    const env = {
      HERALD_WORKER_MAX_ACTIVITIES: '2',
      HERALD_WORKER_INTEGRATOR_SHARE: '100',
      TEMPORAL_ADDRESS: `127.0.0.1:${port}`,
    };
    stack = await startDeliveryStack({ env });
  });
  after(async () => {
    stack.delays.clear();
    await stack.stop();
    await temporal.stop();
    rmSync(tmp, { recursive: true, force: true });
  });

  it("starts a delivery with its subscription's fairness key", async () => {
    const sub = await stack.subscribe('/keyed', ['customer.rejected']);
    const eventId = await stack.publish('customer.rejected');
    const handle = stack.app.temporal.client.workflow.getHandle(deliveryWorkflowId(deliveryIdOf(eventId, sub.id)));
    const { raw } = await handle.describe();
    assert.equal(raw.workflowExecutionInfo?.priority?.fairnessKey, sub.id);
  });

  it("a slow endpoint's backlog does not hold back another endpoint's first attempt", async () => {
    const slow = await stack.subscribe('/slow', ['customer.created']);
    await stack.subscribe('/healthy', ['customer.updated']);
    const { slowBefore, waitedMs } = await publishBehindBacklog(stack, {
      slow: { path: '/slow', eventType: 'customer.created', delayMs: SLOW_MS },
      backlog: BACKLOG,
      other: { path: '/healthy', eventType: 'customer.updated', withinMs: 4 * SLOW_MS },
    });
    // FIFO would run all BACKLOG slow attempts first (≈ BACKLOG / 2 × SLOW_MS); a fair dispatch, at most one round.
    assert.ok(slowBefore <= 4, `${slowBefore} of ${BACKLOG} slow attempts went before the healthy one`);
    assert.ok(waitedMs < 2 * SLOW_MS, `healthy delivery after ${waitedMs} ms`);
    // The slow endpoint is served all the same.
    await eventually(
      () => (stack.requestsTo('/slow').length >= BACKLOG ? true : undefined),
      BACKLOG * SLOW_MS,
      'the slow backlog',
    );
    const listed = async () =>
      (await stack.alice.client.listDeliveriesPage({ subscriptionId: slow.id, status: 'succeeded' })).deliveries;
    const deadline = Date.now() + 10_000;
    while ((await listed()).length < BACKLOG && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
    assert.equal((await listed()).length, BACKLOG);
  });
});
