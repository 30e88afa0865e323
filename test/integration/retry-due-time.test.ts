// A retry is due at the previous answer's time + the rule's wait, not that wait after the workflow learns the result:
// the activity returns what is left of the wait (nextAttemptInMs), the workflow's timer waits that long.
// 1. The real workflow on the time-skipping server, with a scripted activity: the timer's duration, from the history.
// 2. The real activity, real MongoDB-wire server and HTTPS receiver, with an attempt record that takes 1.5 s.
// Record the replay fixture (never overwritten): HERALD_RECORD_HISTORIES=1 npm test -- <this file>
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { createActivities } from '../../activities/index.js';
import { createKeyVault } from '../../src/crypto/key-encryption.js';
import { loadMasterKey } from '../../src/crypto/master-key.js';
import { createWebhookHttpClient } from '../../src/net/http-client.js';
import { callbackUrlPolicyFromConfig } from '../../src/net/policy-from-config.js';
import { createStore } from '../../src/store/index.js';
import { ensureIndexes } from '../../src/store/indexes.js';
import { createMongo } from '../../src/store/mongo.js';
import { deliveryWorkflow } from '../../workflows/delivery.js';
import { deliveryWorkflowId } from '../../workflows/messages.js';
import { initialSearchAttributes } from '../../workflows/start-options.js';
import type { AttemptInput, AttemptResult, AttemptStep, StepInput } from '../../workflows/types.js';
import { writeHistory } from '../fixtures/histories/history-json.js';
import { lifecycleEvent, seedSubscription } from '../helpers/deliveries.js';
import { testConfig } from '../helpers/env.js';
import { startHttpsReceiver, type HttpsReceiver } from '../helpers/receiver.js';
import { durationSeconds, eventsOfType, timestampMs } from '../helpers/temporal.js';
import { startTimeSkippingWorker } from '../helpers/time-skipping.js';

Runtime.install({ logger: new DefaultLogger('WARN') });

describe('the retry timer counts from the answer (time-skipping server, scripted activity)', () => {
  const taskQueue = 'retry-due-time';
  /** Per delivery: what attempt 1 answers as left of its 30 s wait (undefined: a result older than the field). */
  const leftMs = new Map<string, number | undefined>();
  const activities = {
    async runAttempt(input: StepInput): Promise<AttemptStep> {
      return { step: 'sent', result: await activities.attemptDelivery(input) };
    },
    async attemptDelivery(input: AttemptInput | StepInput): Promise<AttemptResult> {
      const n = input.attemptNumber;
      const failed = n === 1;
      return {
        attemptId: `a-${n}`,
        attemptNumber: n,
        outcome: failed ? 'http_error' : 'succeeded',
        statusCode: failed ? 503 : 204,
        deliveryStatus: failed ? 'pending' : 'succeeded',
        retryInSeconds: failed ? 30 : null,
        ...(failed && leftMs.get(input.deliveryId) !== undefined
          ? { nextAttemptInMs: leftMs.get(input.deliveryId) }
          : {}),
      };
    },
    async prepareRerun() {
      return { firstAttemptNumber: 1, followSchedule: true };
    },
  };
  let env: TestWorkflowEnvironment;
  let stop: (() => Promise<void>) | undefined;
  before(async () => {
    ({ env, stop } = await startTimeSkippingWorker(taskQueue, activities));
  });
  after(async () => stop?.());

  /** Runs one delivery whose first attempt answers `left`; its timer (s) and attempt 2's offset (s), from the history. */
  async function run(left: number | undefined, record?: string) {
    const deliveryId = randomUUID();
    leftMs.set(deliveryId, left);
    const handle = await env.client.workflow.start(deliveryWorkflow, {
      taskQueue,
      workflowId: deliveryWorkflowId(deliveryId),
      args: [{ deliveryId, firstAttemptNumber: 1, actor: 'system', followSchedule: true }],
      typedSearchAttributes: initialSearchAttributes({
        subscriptionId: 'sub-1',
        eventType: 'customer.created',
        integratorId: 'int-1',
        attemptCount: 0,
      }),
    });
    assert.deepEqual(await handle.result(), { status: 'succeeded', attempts: 2 });
    const history = await handle.fetchHistory();
    if (record && process.env.HERALD_RECORD_HISTORIES) await writeHistory(record, history);
    const scheduled = eventsOfType(history.events, 'activityTaskScheduledEventAttributes').map((e) =>
      timestampMs(e.eventTime),
    );
    const timers = eventsOfType(history.events, 'timerStartedEventAttributes').map((e) =>
      durationSeconds(e.timerStartedEventAttributes?.startToFireTimeout),
    );
    return { timers, secondAfterFirst: ((scheduled[1] ?? 0) - (scheduled[0] ?? 0)) / 1000 };
  }

  it('waits what was left of the wait when the activity returned (27.5 s), not the whole 30 s', async () => {
    const { timers, secondAfterFirst } = await run(27_500, 'retry-counted-from-answer');
    assert.deepEqual(timers, [27.5]);
    assert.ok(secondAfterFirst >= 27.5 && secondAfterFirst < 29, `attempt 2 at +${secondAfterFirst} s`);
  });

  it('waits the rule’s 30 s for a result without the field, at most 30 s, and 1 ms when overdue', async () => {
    assert.deepEqual((await run(undefined)).timers, [30]);
    assert.deepEqual((await run(45_000)).timers, [30]);
    assert.deepEqual((await run(-2_000)).timers, [0.001]);
  });
});

describe('the attempt activity answers what is left of the wait (real MongoDB-wire server, HTTPS receiver)', () => {
  const config = testConfig({ HERALD_DNS_STATIC: 'hooks.example.com=127.0.0.1', HERALD_ALLOW_CIDRS: '127.0.0.1/32' });
  const mongo = createMongo(config);
  const store = createStore(mongo.db);
  const vault = createKeyVault(loadMasterKey(config).key);
  const http = createWebhookHttpClient({ policy: callbackUrlPolicyFromConfig(config), userAgent: 'Herald-test' });
  const integratorId = randomUUID();
  let receiver: HttpsReceiver;
  before(async () => {
    await ensureIndexes(mongo.db);
    receiver = await startHttpsReceiver(() => ({ status: 503 }));
  });
  after(async () => {
    await receiver.close();
    await http.close();
    await mongo.db.dropDatabase();
    await mongo.client.close();
  });

  it('a record that takes 1.5 s after a 503 leaves ≈ 28.5 s of the 30 s wait; the record says due at answer + 30 s', async () => {
    // The real database, slowed: the record is written 1.5 s after the answer.
    const slow = {
      ...store,
      deliveries: {
        ...store.deliveries,
        recordAttempt: async (...args: Parameters<typeof store.deliveries.recordAttempt>) => {
          await new Promise((r) => setTimeout(r, 1_500));
          return await store.deliveries.recordAttempt(...args);
        },
      },
    };
    const { attemptDelivery } = createActivities({ store: slow, vault, http, activityAttempt: () => 1 });
    const { subscription } = await seedSubscription(store, vault, {
      integratorId,
      url: `https://hooks.example.com:${receiver.port}/slow-record`,
    });
    const event = lifecycleEvent(integratorId);
    await store.events.insertOnce(event);
    const delivery = await store.deliveries.createOnce({
      integratorId,
      subscriptionId: subscription._id,
      eventId: event._id,
      eventType: event.eventType,
    });
    const result = await attemptDelivery({
      deliveryId: delivery._id,
      attemptNumber: 1,
      actor: 'system',
      followSchedule: true,
    });
    const returnedAt = Date.now();
    assert.equal(result.retryInSeconds, 30);
    const left = result.nextAttemptInMs ?? Number.NaN;
    assert.ok(left > 27_000 && left <= 28_600, `${left} ms left of the 30 s wait`);
    const stored = await store.deliveries.findById(delivery._id);
    const answeredAt = receiver.requests.at(-1)?.receivedAt ?? Number.NaN;
    const due = stored?.nextAttemptAt?.getTime() ?? Number.NaN;
    assert.ok(Math.abs(due - (answeredAt + 30_000)) < 300, 'the record: due 30 s after the answer');
    assert.ok(Math.abs(returnedAt + left - due) < 300, 'the result: due at the same time');
  });
});
