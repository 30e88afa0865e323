// Manual retry by update (patch `manual-retry-update`) on the time-skipping server: the real workflow code, fake
// activities. Which attempt answers a request, coalescing, and a re-run numbered from the records.
// Record new replay fixtures: HERALD_RECORD_HISTORIES=1 npm test -- test/integration/delivery-retry-update.test.ts
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { WithStartWorkflowOperation, type WorkflowHandle } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { deliveryStartOptions } from '../../src/delivery/start-delivery.js';
import { deliveryWorkflow } from '../../workflows/delivery.js';
import { deliveryWorkflowId, retryUpdate } from '../../workflows/messages.js';
import { patches } from '../../workflows/patches.js';
import type { DeliveryWorkflowInput, RetryAnswer, RetryRequest, StepInput } from '../../workflows/types.js';
import { writeHistory } from '../fixtures/histories/history-json.js';
import { createFakeDeliveryActivities, failsThenSucceeds } from '../helpers/fake-delivery.js';
import { eventsOfType } from '../helpers/temporal.js';
import { startTimeSkippingWorker } from '../helpers/time-skipping.js';

Runtime.install({ logger: new DefaultLogger('WARN') });

const fake = createFakeDeliveryActivities();
const { receivers, calls } = fake;
/** Per delivery: awaited after an attempt is recorded, before the run hears of it (the window a busy worker has). */
const afterRecord = new Map<string, (attemptNumber: number) => Promise<void>>();
const activities = {
  ...fake.activities,
  async runAttempt(input: StepInput) {
    const step = await fake.activities.runAttempt(input);
    await afterRecord.get(input.deliveryId)?.(input.attemptNumber);
    return step;
  },
};
const taskQueue = 'delivery-retry-update';

function startOptions(input: DeliveryWorkflowInput) {
  const delivery = {
    _id: input.deliveryId,
    subscriptionId: 'sub-1',
    eventType: 'customer.created' as const,
    integratorId: 'int-1',
    attemptCount: input.firstAttemptNumber - 1,
  };
  return deliveryStartOptions(delivery, taskQueue, input);
}

/** A promise and the function that resolves it. */
function gate(): { opened: Promise<void>; open: () => void } {
  let open = (): void => {};
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

/** Records a new fixture (never overwrites a committed one); returns the history's marker and activity names. */
async function shape(handle: WorkflowHandle, fixture: string) {
  const history = await handle.fetchHistory();
  if (process.env.HERALD_RECORD_HISTORIES) await writeHistory(fixture, history);
  return {
    markers: eventsOfType(history.events, 'markerRecordedEventAttributes').length,
    activities: eventsOfType(history.events, 'activityTaskScheduledEventAttributes').map(
      (e) => e.activityTaskScheduledEventAttributes?.activityType?.name,
    ),
  };
}

describe('manual retry by update (time-skipping server)', () => {
  let env: TestWorkflowEnvironment;
  let stop: (() => Promise<void>) | undefined;

  before(async () => {
    ({ env, stop } = await startTimeSkippingWorker(taskQueue, activities));
  });
  after(async () => stop?.());

  it('during the wait: the next attempt at once; requests during that attempt are served by it', async () => {
    const input: DeliveryWorkflowInput = {
      deliveryId: randomUUID(),
      firstAttemptNumber: 1,
      actor: 'system',
      followSchedule: true,
    };
    const attempt2 = { started: gate(), release: gate() };
    receivers.set(input.deliveryId, async (n) => {
      if (n === 2) {
        attempt2.started.open();
        await attempt2.release.opened;
      }
      return n >= 3 ? 'succeeded' : 'http_error';
    });
    const handle = await env.client.workflow.start(deliveryWorkflow, startOptions(input));
    await env.sleep('10 seconds'); // attempt 1 failed; 20 s left of the 30 s wait
    const seen = { args: [{ recordedAttempts: 1 }] as [RetryRequest] };
    assert.deepEqual(await handle.executeUpdate(retryUpdate, seen), { attemptNumber: 2 });
    await attempt2.started.opened;
    const during = await Promise.all([
      handle.executeUpdate(retryUpdate, seen),
      handle.executeUpdate(retryUpdate, seen),
      // From an API instance older than `recordedAttempts`: served by the attempt in flight, as before it.
      handle.executeUpdate<RetryAnswer, [], string>(retryUpdate.name),
    ]);
    assert.deepEqual(during, [{ attemptNumber: 2 }, { attemptNumber: 2 }, { attemptNumber: 2 }], 'coalesced');
    attempt2.release.open();
    assert.deepEqual(await handle.result(), { status: 'succeeded', attempts: 3 });

    const made = calls.get(input.deliveryId)?.map((c) => `${c.attemptNumber} ${c.actor} ${c.retryInSeconds}`);
    assert.deepEqual(made, ['1 system 30', '2 manual 60', '3 system null'], 'one attempt for four requests');
    assert.deepEqual(await shape(handle, 'steps-retry-update-during-wait'), {
      markers: 1, // patched(patches.attemptSteps), which implies the others (workflows/patches.ts)
      activities: ['runAttempt', 'runAttempt', 'runAttempt'],
    });
  });

  it('after the attempt in flight is recorded: the next attempt, at once after it, as manual', async () => {
    const input: DeliveryWorkflowInput = {
      deliveryId: randomUUID(),
      firstAttemptNumber: 1,
      actor: 'system',
      followSchedule: true,
    };
    const recorded = { reached: gate(), release: gate() };
    afterRecord.set(input.deliveryId, async (n) => {
      if (n !== 1) return;
      recorded.reached.open();
      await recorded.release.opened;
    });
    receivers.set(input.deliveryId, failsThenSucceeds(1));
    const handle = await env.client.workflow.start(deliveryWorkflow, startOptions(input));
    await recorded.reached.opened; // attempt 1 failed and is recorded; its run has not heard yet
    const answers = await Promise.all([
      handle.executeUpdate(retryUpdate, { args: [{ recordedAttempts: 0 }] }), // read before the record
      handle.executeUpdate(retryUpdate, { args: [{ recordedAttempts: 1 }] }),
      handle.executeUpdate(retryUpdate, { args: [{ recordedAttempts: 1 }] }),
    ]);
    assert.deepEqual(answers, [{ attemptNumber: 1 }, { attemptNumber: 2 }, { attemptNumber: 2 }]);
    recorded.release.open();
    assert.deepEqual(await handle.result(), { status: 'succeeded', attempts: 2 });
    const timers = eventsOfType((await handle.fetchHistory()).events, 'timerStartedEventAttributes');
    assert.equal(timers.length, 0, 'attempt 2 did not wait out the 30 s step');

    const made = calls.get(input.deliveryId)?.map((c) => `${c.attemptNumber} ${c.actor} ${c.retryInSeconds}`);
    assert.deepEqual(made, ['1 system 30', '2 manual null']);
    assert.deepEqual(await shape(handle, 'steps-retry-update-after-record'), {
      markers: 1,
      activities: ['runAttempt', 'runAttempt'],
    });
  });

  it('a new run for a finished delivery: numbered from the records, one attempt, no schedule', async () => {
    const failed: DeliveryWorkflowInput = {
      deliveryId: randomUUID(),
      firstAttemptNumber: 1,
      actor: 'system',
      followSchedule: true,
    };
    assert.equal((await env.client.workflow.execute(deliveryWorkflow, startOptions(failed))).status, 'failed');

    const release = gate();
    receivers.set(failed.deliveryId, async () => {
      await release.opened;
      return 'succeeded' as const;
    });
    // The API's hints are stale on purpose (it read the delivery long ago): the run reads the records instead.
    const stale: DeliveryWorkflowInput = { ...failed, firstAttemptNumber: 3, actor: 'manual', followSchedule: true };
    const send = () =>
      env.client.workflow.executeUpdateWithStart(retryUpdate, {
        startWorkflowOperation: new WithStartWorkflowOperation(deliveryWorkflow, {
          ...startOptions(stale),
          workflowIdConflictPolicy: 'USE_EXISTING',
        }),
      });
    const answers = await Promise.all([send(), send(), send()]);
    assert.deepEqual(answers, [{ attemptNumber: 8 }, { attemptNumber: 8 }, { attemptNumber: 8 }]);
    release.open();
    const handle = env.client.workflow.getHandle(deliveryWorkflowId(failed.deliveryId));
    assert.deepEqual(await handle.result(), { status: 'succeeded', attempts: 1 });

    assert.deepEqual(calls.get(failed.deliveryId)?.slice(7), [
      { deliveryId: failed.deliveryId, attemptNumber: 8, actor: 'manual', followSchedule: false, retryInSeconds: null },
    ]);
    assert.deepEqual(await shape(handle, 'steps-retry-update-rerun'), {
      markers: 1, // patched(patches.attemptSteps), which implies manual-retry-update too
      activities: ['prepareRerun', 'runAttempt'],
    });
    const markers = eventsOfType((await handle.fetchHistory()).events, 'markerRecordedEventAttributes');
    const patchId = Buffer.from(JSON.stringify(patches.attemptSteps)).toString('base64');
    assert.ok(markers.some((marker) => JSON.stringify(marker).includes(patchId)));
  });
});
