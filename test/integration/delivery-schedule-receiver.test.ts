// The whole delivery — real workflow, real activity, real MongoDB-wire server, real HTTPS receiver — on the
// time-skipping server: the retry schedule as the receiver sees it, in workflow time read from the history.
// HERALD_RECORD_HISTORIES=1 npm test -- <this file> records the replay fixture
// ruled-cancelled-at-next-attempt (once: recorded fixtures are never overwritten).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import { createActivities } from '../../activities/index.js';
import { createKeyVault } from '../../src/crypto/key-encryption.js';
import { loadMasterKey } from '../../src/crypto/master-key.js';
import { startDeliveryWorkflow } from '../../src/delivery/start-delivery.js';
import { createWebhookHttpClient } from '../../src/net/http-client.js';
import { callbackUrlPolicyFromConfig } from '../../src/net/policy-from-config.js';
import { attemptsOf } from '../../src/store/deliveries-repo.js';
import { deliveryIdOf } from '../../src/store/derived-ids.js';
import { createStore } from '../../src/store/index.js';
import { ensureIndexes } from '../../src/store/indexes.js';
import { createMongo } from '../../src/store/mongo.js';
import { deliveryWorkflowId } from '../../workflows/messages.js';
import { writeHistory } from '../fixtures/histories/history-json.js';
import { lifecycleEvent, seedSubscription } from '../helpers/deliveries.js';
import { requireEnv, testConfig } from '../helpers/env.js';
import { startHttpsReceiver, type HttpsReceiver } from '../helpers/receiver.js';
import { eventsOfType, timestampMs } from '../helpers/temporal.js';
import { assertOffsets, registerSearchAttributes } from '../helpers/time-skipping.js';

Runtime.install({ logger: new DefaultLogger('WARN') });

describe('delivery schedule at a real receiver (time-skipping server)', () => {
  const config = testConfig({ HERALD_DNS_STATIC: 'hooks.example.com=127.0.0.1', HERALD_ALLOW_CIDRS: '127.0.0.1/32' });
  const mongo = createMongo(config);
  const store = createStore(mongo.db);
  const vault = createKeyVault(loadMasterKey(config).key);
  const http = createWebhookHttpClient({ policy: callbackUrlPolicyFromConfig(config), userAgent: 'Herald-test' });
  const integratorId = randomUUID();
  /** Per path: how many requests fail (500) before the receiver answers 204. */
  const failures = new Map<string, number>();
  /** Per path: run once, while the first request is being answered. */
  const duringFirst = new Map<string, () => Promise<void>>();
  let receiver: HttpsReceiver;
  let env: TestWorkflowEnvironment;
  let worker: Worker;
  let running: Promise<void>;

  before(async () => {
    await ensureIndexes(mongo.db);
    receiver = await startHttpsReceiver(async (r) => {
      const hook = duringFirst.get(r.url);
      duringFirst.delete(r.url);
      await hook?.();
      const seen = receiver.requests.filter((x) => x.url === r.url).length;
      return { status: seen <= (failures.get(r.url) ?? Infinity) ? 500 : 204 };
    });
    env = await TestWorkflowEnvironment.createTimeSkipping({
      server: { executable: { type: 'existing-path', path: requireEnv('HERALD_TEMPORAL_TEST_SERVER') } },
    });
    await registerSearchAttributes(env);
    worker = await Worker.create({
      connection: env.nativeConnection,
      taskQueue: config.TEMPORAL_TASK_QUEUE,
      workflowsPath: fileURLToPath(new URL('../../workflows/index.ts', import.meta.url)),
      activities: createActivities({ store, vault, http }),
    });
    running = worker.run();
  });
  after(async () => {
    worker?.shutdown();
    await running;
    await env?.teardown();
    await receiver.close();
    await http.close();
    await mongo.db.dropDatabase();
    await mongo.client.close();
  });

  /** Delivers one event to `path` and returns the workflow's result and attempt offsets (s of workflow time). */
  async function deliver(path: string, whileFirstAttempt?: (subscriptionId: string) => Promise<void>) {
    const { subscription } = await seedSubscription(store, vault, {
      integratorId,
      url: `https://hooks.example.com:${receiver.port}${path}`,
    });
    if (whileFirstAttempt) duringFirst.set(path, () => whileFirstAttempt(subscription._id));
    const event = lifecycleEvent(integratorId);
    // As the fan-out does it: the workflow first, then the event; the first attempt's record creates the delivery.
    const deliveryId = deliveryIdOf(event._id, subscription._id);
    await startDeliveryWorkflow(env.client, config.TEMPORAL_TASK_QUEUE, {
      deliveryId,
      eventId: event._id,
      subscriptionId: subscription._id,
      subscriptionVersion: 0,
      integratorId,
      eventType: event.eventType,
      createdAt: event.createdAt.toISOString(),
    });
    await store.events.insertOnce(event);
    const handle = env.client.workflow.getHandle(deliveryWorkflowId(deliveryId));
    const result: unknown = await handle.result();
    const history = await handle.fetchHistory();
    if (process.env.HERALD_RECORD_HISTORIES && whileFirstAttempt)
      await writeHistory('ruled-cancelled-at-next-attempt', history);
    const events = history.events;
    const start = timestampMs(eventsOfType(events, 'workflowExecutionStartedEventAttributes')[0]?.eventTime);
    // Each attempt's offset without the real time the earlier attempts took (a loaded machine makes them slow):
    // what is left is the schedule's waits.
    const closed = eventsOfType(events, 'activityTaskCompletedEventAttributes').map((e) => timestampMs(e.eventTime));
    // The wait counts from the receiver's answer, not from the activity's close (waitBeforeNextMs): an attempt may
    // come sooner than these offsets say by the time the earlier activity spent after the answer (its record), at
    // most that activity's whole time.
    const scheduled = eventsOfType(events, 'activityTaskScheduledEventAttributes').map((e) => timestampMs(e.eventTime));
    const took = scheduled.map((at, i) => (closed[i] ?? at) - at);
    let inAttempts = 0;
    const offsets = scheduled.map((at, i) => {
      const offset = (at - start - inAttempts) / 1000;
      inAttempts += took[i] ?? 0;
      return offset;
    });
    const early = scheduled.map((_, i) => (i === 0 ? 0 : (took[i - 1] ?? 0) / 1000));
    const requests = receiver.requests.filter((r) => r.url === path);
    return { result, offsets, early, requests, record: await store.deliveries.findById(deliveryId), event };
  }

  it('a receiver that always fails sees exactly 7 attempts on the schedule, then the delivery is failed', async () => {
    const { result, offsets, early, requests, record, event } = await deliver('/always-500');
    assert.deepEqual(result, { status: 'failed', attempts: 7 });
    assert.equal(requests.length, 7);
    assertOffsets(offsets, [0, 30, 90, 390, 2190, 9390, 30990], 2, early);
    for (const r of requests) assert.equal(r.body.toString('utf8'), event.body, 'byte-identical every time');
    assert.equal(record?.status, 'failed');
    assert.equal(record?.attemptCount, 7);
    assert.equal(record?.terminalReason, 'retries_exhausted');
    assert.equal(record?.nextAttemptAt, null);
  });

  it('a receiver that fails 3 times then answers 204 ends succeeded after attempt 4', async () => {
    failures.set('/fails-3', 3);
    const { result, offsets, early, requests, record } = await deliver('/fails-3');
    assert.deepEqual(result, { status: 'succeeded', attempts: 4 });
    assert.equal(requests.length, 4);
    assertOffsets(offsets, [0, 30, 90, 390], 2, early);
    assert.equal(record?.status, 'succeeded');
    assert.equal(record?.attemptCount, 4);
    assert.equal(record?.lastResponseSummary?.status, 204);
    const attempts = attemptsOf(record ?? {});
    assert.deepEqual(
      attempts.map((a) => [a.attemptNumber, a.outcome, a.statusCode]),
      [
        [1, 'http_error', 500],
        [2, 'http_error', 500],
        [3, 'http_error', 500],
        [4, 'succeeded', 204],
      ],
    );
  });

  it('a subscription deleted during the wait: the next attempt sends nothing, and the delivery ends cancelled', async () => {
    const { result, requests, record } = await deliver('/deleted-in-wait', async (subscriptionId) => {
      await store.subscriptions.collection.updateOne({ _id: subscriptionId }, { $set: { deletedAt: new Date() } });
    });
    assert.deepEqual(result, { status: 'cancelled', attempts: 1 }, 'the call that made no attempt is not counted');
    assert.equal(requests.length, 1);
    assert.equal(record?.status, 'cancelled');
    assert.equal(record?.terminalReason, 'subscription_deleted');
    assert.equal(record?.attemptCount, 1);
  });
});
