// The delivery workflow's schedule on the time-skipping server: the real workflow code, a scripted fake receiver as
// its activity. Times and timer durations are read from the recorded history.
// Record new replay fixtures (never re-records one): HERALD_RECORD_HISTORIES=1 npm test -- test/integration/delivery-schedule.test.ts
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { WithStartWorkflowOperation, WorkflowUpdateFailedError, type WorkflowHandle } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { deliveryWorkflow } from '../../workflows/delivery.js';
import {
  attemptResultUpdate,
  cancelSignal,
  deliveryStateQuery,
  deliveryWorkflowId,
  retryNowSignal,
} from '../../workflows/messages.js';
import { RETRY_DELAYS_SECONDS } from '../../src/domain/retry-schedule.js';
import { searchAttributes } from '../../workflows/search-attributes.js';
import { initialSearchAttributes } from '../../workflows/start-options.js';
import type { DeliveryWorkflowInput } from '../../workflows/types.js';
import { writeHistory } from '../fixtures/histories/history-json.js';
import { createFakeDeliveryActivities, failsThenSucceeds } from '../helpers/fake-delivery.js';
import { durationSeconds, eventsOfType, timestampMs } from '../helpers/temporal.js';
import { assertOffsets, startTimeSkippingWorker } from '../helpers/time-skipping.js';

Runtime.install({ logger: new DefaultLogger('WARN') });

const { activities, receivers, calls, records } = createFakeDeliveryActivities();
const taskQueue = 'delivery-schedule';
const searchContext = { subscriptionId: 'sub-1', eventType: 'customer.created', integratorId: 'int-1' };

function newInput(overrides: Partial<DeliveryWorkflowInput> = {}): DeliveryWorkflowInput {
  return { deliveryId: randomUUID(), firstAttemptNumber: 1, actor: 'system', followSchedule: true, ...overrides };
}

function startOptions(input: DeliveryWorkflowInput) {
  return {
    taskQueue,
    workflowId: deliveryWorkflowId(input.deliveryId),
    args: [input] as [DeliveryWorkflowInput],
    typedSearchAttributes: initialSearchAttributes({ ...searchContext, attemptCount: input.firstAttemptNumber - 1 }),
  };
}

/** Attempt times (s after the workflow started), timer durations (s) and cancelled timers, from the history. */
async function timeline(handle: WorkflowHandle, record?: string) {
  const history = await handle.fetchHistory();
  if (record && process.env.HERALD_RECORD_HISTORIES) await writeHistory(record, history); // new fixtures only
  const events = history.events;
  const startMs = timestampMs(eventsOfType(events, 'workflowExecutionStartedEventAttributes')[0]?.eventTime);
  return {
    startMs,
    attemptsAt: eventsOfType(events, 'activityTaskScheduledEventAttributes')
      .filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'runAttempt')
      .map((e) => (timestampMs(e.eventTime) - startMs) / 1000),
    timers: eventsOfType(events, 'timerStartedEventAttributes').map((e) =>
      durationSeconds(e.timerStartedEventAttributes?.startToFireTimeout),
    ),
    cancelledTimers: eventsOfType(events, 'timerCanceledEventAttributes').length,
  };
}

async function searchAttributesOf(handle: WorkflowHandle) {
  const { typedSearchAttributes: sa } = await handle.describe();
  assert.equal(sa.get(searchAttributes.subscriptionId), 'sub-1'); // set at start by initialSearchAttributes
  return { status: sa.get(searchAttributes.deliveryStatus), attemptCount: sa.get(searchAttributes.attemptCount) };
}

describe('delivery workflow schedule (time-skipping server)', () => {
  let env: TestWorkflowEnvironment;
  let stop: (() => Promise<void>) | undefined;

  before(async () => {
    ({ env, stop } = await startTimeSkippingWorker(taskQueue, activities));
  });
  after(async () => stop?.());

  it('makes 7 attempts at +0, 30 s, 90 s, 6 min 30 s, 36 min 30 s, 2 h 36 min 30 s and 8 h 36 min 30 s, then fails', async () => {
    const input = newInput();
    const handle = await env.client.workflow.start(deliveryWorkflow, startOptions(input));
    assert.deepEqual(await handle.result(), { status: 'failed', attempts: 7 });

    const { attemptsAt, timers } = await timeline(handle);
    assertOffsets(attemptsAt, [0, 30, 90, 390, 2190, 9390, 30990]);
    assert.deepEqual(timers, [...RETRY_DELAYS_SECONDS]);
    const inputs = calls.get(input.deliveryId) ?? [];
    assert.deepEqual(
      inputs.map(({ attemptNumber, retryInSeconds }) => [attemptNumber, retryInSeconds]),
      [...RETRY_DELAYS_SECONDS.map((delay, i) => [i + 1, delay]), [7, null]],
    );
    assert.ok(inputs.every((i) => i.actor === 'system'));
    assert.deepEqual(await searchAttributesOf(handle), { status: 'failed', attemptCount: 7 });
  });

  it('succeeds on the 4th attempt after 3 failures: 4 activity calls, 3 timers', async () => {
    const input = newInput();
    receivers.set(input.deliveryId, failsThenSucceeds(3));
    const handle = await env.client.workflow.start(deliveryWorkflow, startOptions(input));
    assert.deepEqual(await handle.result(), { status: 'succeeded', attempts: 4 });

    const { attemptsAt, timers } = await timeline(handle, 'steps-succeeds-after-3-failures');
    assertOffsets(attemptsAt, [0, 30, 90, 390]);
    assert.deepEqual(timers, [30, 60, 300]);
    assert.equal(calls.get(input.deliveryId)?.length, 4);
    assert.deepEqual(await searchAttributesOf(handle), { status: 'succeeded', attemptCount: 4 });
    const state = await handle.query(deliveryStateQuery);
    assert.deepEqual(state, { status: 'succeeded', attemptCount: 4, nextAttemptAt: null, lastOutcome: 'succeeded' });
  });

  it('attempts at once on retryNow during the 2 h wait, then waits 6 h', async () => {
    const input = newInput();
    const handle = await env.client.workflow.start(deliveryWorkflow, startOptions(input));
    await env.sleep('46 minutes'); // attempt 5 at +36 min 30 s: now inside the 2 h wait
    const { nextAttemptAt, ...state } = await handle.query(deliveryStateQuery);
    assert.deepEqual(state, { status: 'pending', attemptCount: 5, lastOutcome: 'http_error' });
    const { startMs } = await timeline(handle);
    const nextAt = Date.parse(nextAttemptAt ?? '') - startMs;
    assert.ok(nextAt >= 9390_000 && nextAt < 9392_000, `nextAttemptAt ${nextAttemptAt}: +${nextAt} ms`);

    await handle.signal(retryNowSignal);
    assert.deepEqual(await handle.result(), { status: 'failed', attempts: 7 });

    const { attemptsAt, timers, cancelledTimers } = await timeline(handle, 'steps-always-fails-with-retry-now');
    assert.equal(attemptsAt.length, 7);
    const sixth = attemptsAt[5] ?? Number.NaN;
    assert.ok(sixth >= 2760 && sixth < 2800, `6th attempt at +${sixth} s, the 2 h timer would fire at +9390 s`);
    assertOffsets(attemptsAt.slice(6), [sixth + 21600]);
    assert.deepEqual(timers, [30, 60, 300, 1800, 7200, 21600]);
    assert.equal(cancelledTimers, 1);
    const inputs = calls.get(input.deliveryId) ?? [];
    assert.equal(inputs.map((i) => i.actor).join(), 'system,system,system,system,system,manual,system');
    assert.deepEqual(
      inputs.map((i) => i.retryInSeconds),
      [...RETRY_DELAYS_SECONDS, null],
    );
  });

  it('keeps a retryNow that arrives during an attempt: the next attempt follows at once', async () => {
    const input = newInput();
    let release = (): void => {};
    let started = (): void => {};
    const attempt2Started = new Promise<void>((resolve) => (started = resolve));
    receivers.set(input.deliveryId, async (n) => {
      if (n !== 2) return n >= 3 ? 'succeeded' : 'timeout';
      started();
      await new Promise<void>((resolve) => (release = resolve));
      return 'connection_error';
    });
    const handle = await env.client.workflow.start(deliveryWorkflow, startOptions(input));
    const result = handle.result();
    await attempt2Started;
    await handle.signal(retryNowSignal);
    await waitForWorkflowTaskAfterSignal(handle);
    release();
    assert.deepEqual(await result, { status: 'succeeded', attempts: 3 });

    const { attemptsAt, timers } = await timeline(handle);
    assertOffsets(attemptsAt, [0, 30, 30]);
    assert.deepEqual(timers, [30]);
    const actors = calls.get(input.deliveryId)?.map((i) => i.actor);
    assert.deepEqual(actors, ['system', 'system', 'manual']);
  });

  it('honours a retryNow that arrives during the last attempt of a run: one more attempt at once', async () => {
    const input = newInput({ actor: 'manual', followSchedule: false });
    records.set(input.deliveryId, { attemptCount: 0, status: 'failed' }); // a terminal delivery, re-run by hand
    let release = (): void => {};
    let started = (): void => {};
    const attemptStarted = new Promise<void>((resolve) => (started = resolve));
    receivers.set(input.deliveryId, async (n) => {
      if (n !== 1) return 'succeeded';
      started();
      await new Promise<void>((resolve) => (release = resolve));
      return 'http_error';
    });
    const handle = await env.client.workflow.start(deliveryWorkflow, startOptions(input));
    const result = handle.result();
    await attemptStarted;
    await handle.signal(retryNowSignal);
    await waitForWorkflowTaskAfterSignal(handle);
    release();
    assert.deepEqual(await result, { status: 'succeeded', attempts: 2 });
    await timeline(handle, 'steps-retry-during-last-attempt');
    const made = calls.get(input.deliveryId)?.map((i) => `${i.attemptNumber} ${i.actor} ${i.retryInSeconds}`);
    assert.deepEqual(made, ['1 manual null', '2 manual null']);
  });

  it('makes exactly one attempt in a manual re-run started with signalWithStart (followSchedule: false)', async () => {
    const failed = newInput();
    assert.equal((await env.client.workflow.execute(deliveryWorkflow, startOptions(failed))).status, 'failed');
    const input = newInput({
      deliveryId: failed.deliveryId,
      firstAttemptNumber: 8,
      actor: 'manual',
      followSchedule: false,
    });
    const { signaledRunId } = await env.client.workflow.signalWithStart(deliveryWorkflow, {
      ...startOptions(input),
      signal: retryNowSignal,
      signalArgs: [],
    });
    const handle = env.client.workflow.getHandle(deliveryWorkflowId(input.deliveryId), signaledRunId);
    assert.deepEqual(await handle.result(), { status: 'failed', attempts: 1 });

    const { attemptsAt, timers } = await timeline(handle, 'steps-manual-rerun-one-attempt');
    assert.equal(attemptsAt.length, 1);
    assert.deepEqual(timers, []);
    assert.deepEqual(calls.get(input.deliveryId)?.slice(7), [
      { deliveryId: input.deliveryId, attemptNumber: 8, actor: 'manual', followSchedule: false, retryInSeconds: null },
    ]);
    assert.deepEqual(await searchAttributesOf(handle), { status: 'failed', attemptCount: 8 });
  });

  it('answers attemptResult with update-with-start once the first attempt has finished', async () => {
    const input = newInput({ actor: 'test' });
    receivers.set(input.deliveryId, failsThenSucceeds(1));
    const startWorkflowOperation = new WithStartWorkflowOperation(deliveryWorkflow, {
      ...startOptions(input),
      workflowIdConflictPolicy: 'FAIL',
    });
    const first = await env.client.workflow.executeUpdateWithStart(attemptResultUpdate, {
      args: [1],
      startWorkflowOperation,
    });
    const expectedFirst = { attemptId: 'a-1', attemptNumber: 1, outcome: 'http_error', statusCode: 500 };
    assert.deepEqual(first, { ...expectedFirst, deliveryStatus: 'pending', retryInSeconds: 30 });
    const handle = await startWorkflowOperation.workflowHandle();
    await assert.rejects(handle.executeUpdate(attemptResultUpdate, { args: [0] }), WorkflowUpdateFailedError);
    const result = handle.result(); // awaiting the result lets the server skip the 30 s wait
    const second = await handle.executeUpdate(attemptResultUpdate, { args: [2] });
    assert.equal(second.outcome, 'succeeded');
    assert.deepEqual(await result, { status: 'succeeded', attempts: 2 });
    await timeline(handle, 'steps-test-send-with-update');
  });

  it('ends a waiting run at once on the cancel signal: no further attempt, status cancelled', async () => {
    const input = newInput();
    const handle = await env.client.workflow.start(deliveryWorkflow, startOptions(input));
    await env.sleep('10 seconds'); // attempt 1 failed: inside the 30 s wait
    await handle.signal(cancelSignal);
    assert.deepEqual(await handle.result(), { status: 'cancelled', attempts: 1 });

    const { attemptsAt, timers, cancelledTimers } = await timeline(handle, 'steps-cancel-signal-during-wait');
    assert.equal(attemptsAt.length, 1);
    assert.deepEqual(timers, [30]);
    assert.equal(cancelledTimers, 1);
    assert.deepEqual(await searchAttributesOf(handle), { status: 'cancelled', attemptCount: 1 });
    const state = await handle.query(deliveryStateQuery);
    assert.deepEqual(state, { status: 'cancelled', attemptCount: 1, nextAttemptAt: null, lastOutcome: 'http_error' });
  });

  it('fails an attemptResult update for an attempt the run never makes', async () => {
    const input = newInput({ actor: 'test' });
    receivers.set(input.deliveryId, () => 'succeeded');
    const startWorkflowOperation = new WithStartWorkflowOperation(deliveryWorkflow, {
      ...startOptions(input),
      workflowIdConflictPolicy: 'FAIL',
    });
    await assert.rejects(
      env.client.workflow.executeUpdateWithStart(attemptResultUpdate, { args: [3], startWorkflowOperation }),
      (err: unknown) => err instanceof WorkflowUpdateFailedError && /attempt 3 was not made/.test(String(err.cause)),
    );
    const handle = await startWorkflowOperation.workflowHandle();
    assert.deepEqual(await handle.result(), { status: 'succeeded', attempts: 1 });
  });
});

/** Waits until the workflow has completed a workflow task after the last signal: the signal reached its code. */
async function waitForWorkflowTaskAfterSignal(handle: WorkflowHandle): Promise<void> {
  for (let i = 0; i < 100; i++) {
    const events = (await handle.fetchHistory()).events ?? [];
    const signalAt = events.findLastIndex((e) => e.workflowExecutionSignaledEventAttributes != null);
    if (signalAt >= 0 && events.slice(signalAt).some((e) => e.workflowTaskCompletedEventAttributes != null)) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('the workflow did not process the signal');
}
