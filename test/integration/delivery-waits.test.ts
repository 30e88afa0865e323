// A delivery turned away by a capacity guard (patch `attempt-steps`: the integrator's share of slots, the breaker of
// its endpoint) on the time-skipping server: the real workflow code, fake activities. A wait sends nothing, records
// no attempt and uses no step of the schedule; the run shows it (query, search attribute) and asks again when due.
// Record new replay fixtures: HERALD_RECORD_HISTORIES=1 npm test -- test/integration/delivery-waits.test.ts
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { deliveryWorkflow } from '../../workflows/delivery.js';
import { cancelSignal, deliveryStateQuery, retryUpdate } from '../../workflows/messages.js';
import { patches } from '../../workflows/patches.js';
import { searchAttributes } from '../../workflows/search-attributes.js';
import type { DeliveryWorkflowInput } from '../../workflows/types.js';
import { writeHistory } from '../fixtures/histories/history-json.js';
import { createFakeDeliveryActivities, fakeStartOptions, newDeliveryInput } from '../helpers/fake-delivery.js';
import { eventsOfType } from '../helpers/temporal.js';
import { startTimeSkippingWorker } from '../helpers/time-skipping.js';

Runtime.install({ logger: new DefaultLogger('WARN') });

const { activities, receivers, calls } = createFakeDeliveryActivities();
const taskQueue = 'delivery-waits';

const newDelivery = newDeliveryInput;
const startOptions = (input: DeliveryWorkflowInput) => fakeStartOptions(taskQueue, input);
const made = (id: string) => calls.get(id)?.map((c) => `${c.attemptNumber} ${c.actor} ${c.waited ?? c.retryInSeconds}`);

describe('a delivery turned away by a capacity guard (time-skipping server)', () => {
  let env: TestWorkflowEnvironment;
  let stop: (() => Promise<void>) | undefined;
  before(async () => {
    ({ env, stop } = await startTimeSkippingWorker(taskQueue, activities));
  });
  after(async () => stop?.());

  it('waits without using an attempt number or a schedule step, shows why, then asks again', async () => {
    const input = newDelivery();
    let turnedAway = 0;
    receivers.set(input.deliveryId, (n) => {
      if (n === 2 && turnedAway < 3) {
        turnedAway += 1;
        return { wait: 'endpoint_unresponsive', ms: 20_000 };
      }
      return n === 1 || n === 2 ? 'http_error' : 'succeeded';
    });
    const handle = await env.client.workflow.start(deliveryWorkflow, startOptions(input));
    await env.sleep('35 seconds'); // attempt 1 failed; attempt 2 due at +30 s was turned away
    const state = await handle.query(deliveryStateQuery);
    assert.deepEqual(
      [state.status, state.attemptCount, state.waitReason, state.held],
      ['pending', 1, 'endpoint_unresponsive', undefined],
    );
    assert.ok(state.nextAttemptAt !== null, 'the wait says until when');
    assert.equal((await handle.describe()).typedSearchAttributes.get(searchAttributes.deliveryStatus), 'waiting');
    assert.deepEqual(await handle.result(), { status: 'succeeded', attempts: 3 });
    // Three waits of 20 s, then attempt 2 is made with its own number; attempt 3 follows it on the schedule (60 s).
    assert.deepEqual(made(input.deliveryId), [
      '1 system 30',
      '2 system endpoint_unresponsive',
      '2 system endpoint_unresponsive',
      '2 system endpoint_unresponsive',
      '2 system 60',
      '3 system null',
    ]);
    const history = await handle.fetchHistory();
    if (process.env.HERALD_RECORD_HISTORIES) await writeHistory('steps-waits-then-succeeds', history);
    const markers = eventsOfType(history.events, 'markerRecordedEventAttributes');
    const patchId = Buffer.from(JSON.stringify(patches.attemptSteps)).toString('base64');
    assert.equal(markers.length, 1);
    assert.ok(JSON.stringify(markers[0]).includes(patchId), 'a new run records attempt-steps');
    const timers = eventsOfType(history.events, 'timerStartedEventAttributes').length;
    assert.equal(timers, 5, 'the 30 s step, three waits, the 60 s step');
    // Three waits changed what the Temporal UI shows once (waiting), not once per wait; the first upsert is the
    // patch marker's TemporalChangeVersion.
    const upserts = eventsOfType(history.events, 'upsertWorkflowSearchAttributesEventAttributes').length;
    assert.equal(upserts, 5, 'marker, pending (attempt 1), waiting, pending (attempt 2), succeeded (attempt 3)');
  });

  it('a manual retry cuts a wait short and is served at once with the waiting number', async () => {
    const input = newDelivery();
    receivers.set(input.deliveryId, (n) => (n === 1 ? { wait: 'integrator_busy', ms: 3_600_000 } : 'succeeded'));
    const handle = await env.client.workflow.start(deliveryWorkflow, startOptions(input));
    await env.sleep('10 seconds');
    receivers.set(input.deliveryId, () => 'succeeded');
    assert.deepEqual(await handle.executeUpdate(retryUpdate, { args: [{ recordedAttempts: 0 }] }), {
      attemptNumber: 1,
    });
    assert.deepEqual(await handle.result(), { status: 'succeeded', attempts: 1 });
    assert.deepEqual(made(input.deliveryId), ['1 system integrator_busy', '1 manual null']);
  });

  it('a cancel ends a waiting run at once, without an attempt', async () => {
    const input = newDelivery();
    receivers.set(input.deliveryId, () => ({ wait: 'integrator_busy', ms: 3_600_000 }));
    const handle = await env.client.workflow.start(deliveryWorkflow, startOptions(input));
    await env.sleep('10 seconds');
    await handle.signal(cancelSignal);
    assert.deepEqual(await handle.result(), { status: 'cancelled', attempts: 0 });
    assert.deepEqual(made(input.deliveryId), ['1 system integrator_busy']);
    const history = await handle.fetchHistory();
    if (process.env.HERALD_RECORD_HISTORIES) await writeHistory('steps-waiting-then-cancelled', history);
    assert.equal((await handle.describe()).typedSearchAttributes.get(searchAttributes.deliveryStatus), 'cancelled');
  });
});
