// A delivery held by its paused subscription (patch `pause-hold`) on the time-skipping server: the real workflow
// code, fake activities. A due retry found paused waits for the release without using its step of the schedule.
// Record new replay fixtures: HERALD_RECORD_HISTORIES=1 npm test -- test/integration/delivery-pause-hold.test.ts
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { WorkflowHandle } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { deliveryWorkflow } from '../../workflows/delivery.js';
import { cancelSignal, deliveryStateQuery, releaseSignal } from '../../workflows/messages.js';
import { patches } from '../../workflows/patches.js';
import { searchAttributes } from '../../workflows/search-attributes.js';
import type { DeliveryWorkflowInput } from '../../workflows/types.js';
import { writeHistory } from '../fixtures/histories/history-json.js';
import { createFakeDeliveryActivities, fakeStartOptions, newDeliveryInput } from '../helpers/fake-delivery.js';
import { eventsOfType } from '../helpers/temporal.js';
import { startTimeSkippingWorker } from '../helpers/time-skipping.js';

Runtime.install({ logger: new DefaultLogger('WARN') });

const { activities, receivers, calls } = createFakeDeliveryActivities();
const taskQueue = 'delivery-pause-hold';

const newDelivery = newDeliveryInput;
const startOptions = (input: DeliveryWorkflowInput) => fakeStartOptions(taskQueue, input);
const made = (id: string) => calls.get(id)?.map((c) => `${c.attemptNumber} ${c.actor} ${c.retryInSeconds}`);

/** Records a new fixture (never overwrites a committed one); returns its marker and activity counts. */
async function shape(handle: WorkflowHandle, fixture: string) {
  const history = await handle.fetchHistory();
  if (process.env.HERALD_RECORD_HISTORIES) await writeHistory(fixture, history);
  const markers = eventsOfType(history.events, 'markerRecordedEventAttributes');
  const patchId = Buffer.from(JSON.stringify(patches.attemptSteps)).toString('base64');
  return {
    // A new run records one marker, `attempt-steps`, which implies pause-hold (workflows/patches.ts).
    markers: markers.length,
    stepsMarker: markers.some((marker) => JSON.stringify(marker).includes(patchId)),
    activities: eventsOfType(history.events, 'activityTaskScheduledEventAttributes').length,
    timers: eventsOfType(history.events, 'timerStartedEventAttributes').length,
  };
}

describe('a delivery held by its paused subscription (time-skipping server)', () => {
  let env: TestWorkflowEnvironment;
  let stop: (() => Promise<void>) | undefined;
  before(async () => {
    ({ env, stop } = await startTimeSkippingWorker(taskQueue, activities));
  });
  after(async () => stop?.());

  it('a due retry found paused waits, however long, and after the release keeps its number and schedule', async () => {
    const input = newDelivery();
    let paused = false;
    receivers.set(input.deliveryId, (n) =>
      n === 1 ? 'http_error' : paused ? 'held' : n === 2 ? 'http_error' : 'succeeded',
    );
    const handle = await env.client.workflow.start(deliveryWorkflow, startOptions(input));
    await env.sleep('5 seconds');
    paused = true; // the subscription is paused during the 30 s wait after attempt 1
    await env.sleep('30 seconds');
    assert.deepEqual(made(input.deliveryId), ['1 system 30', '2 system null']);
    const state = await handle.query(deliveryStateQuery);
    assert.deepEqual([state.status, state.held, state.attemptCount, state.nextAttemptAt], ['pending', true, 1, null]);
    assert.equal((await handle.describe()).typedSearchAttributes.get(searchAttributes.deliveryStatus), 'held');
    await env.sleep('3 days');
    assert.equal(made(input.deliveryId)?.length, 2, 'no attempt while held, not even after days');

    paused = false;
    await handle.signal(releaseSignal);
    assert.deepEqual(await handle.result(), { status: 'succeeded', attempts: 3 });
    // Attempt 2 made after the release is the one the schedule had due; after it, the schedule's next step (60 s).
    assert.deepEqual(made(input.deliveryId), ['1 system 30', '2 system null', '2 system 60', '3 system null']);
    assert.deepEqual(await shape(handle, 'steps-pause-held-retry-released'), {
      markers: 1,
      stepsMarker: true,
      activities: 4,
      timers: 2,
    });
  });

  it('a new delivery held from its first attempt ends at once when cancelled, without an attempt', async () => {
    const input = newDelivery();
    receivers.set(input.deliveryId, () => 'held');
    const handle = await env.client.workflow.start(deliveryWorkflow, startOptions(input));
    await env.sleep('1 hour');
    assert.deepEqual(made(input.deliveryId), ['1 system null']);
    await handle.signal(cancelSignal);
    assert.deepEqual(await handle.result(), { status: 'cancelled', attempts: 0 });
    assert.equal(made(input.deliveryId)?.length, 1);
    assert.equal((await handle.describe()).typedSearchAttributes.get(searchAttributes.deliveryStatus), 'cancelled');
    assert.deepEqual(await shape(handle, 'steps-pause-held-then-cancelled'), {
      markers: 1,
      stepsMarker: true,
      activities: 1,
      timers: 0,
    });
  });

  it('a release sent while the attempt runs lets a held attempt go at once', async () => {
    const input = newDelivery();
    let first = true;
    receivers.set(input.deliveryId, async () => {
      if (!first) return 'succeeded';
      first = false;
      await handle.signal(releaseSignal); // the resume raced the attempt that found the subscription paused
      return 'held';
    });
    const handle: WorkflowHandle = await env.client.workflow.start(deliveryWorkflow, startOptions(input));
    assert.deepEqual(await handle.result(), { status: 'succeeded', attempts: 1 });
    assert.deepEqual(made(input.deliveryId), ['1 system null', '1 system null']);
  });
});
