// Eager workflow start (issue 13) on the real stack: with HERALD_API_WORKER_SLOTS > 0 the API hosts a small delivery
// worker and the fan-out starts each delivery through a client on that worker's NativeConnection, so Temporal hands
// the first workflow task back in the start response (no trip through matching); with 0 it starts them normally.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { apiWorkerIdentity, eagerStartIdentity } from '../../src/temporal/api-worker.js';
import { deliveryIdOf } from '../../src/store/derived-ids.js';
import { deliveryWorkflowId } from '../../workflows/messages.js';
import { assertSignedDelivery, eventually } from '../helpers/deliveries.js';
import { startDeliveryStack, type DeliveryStack } from '../helpers/delivery-stack.js';

/** Who started and who completed the first workflow task of a delivery's run. */
async function firstWorkflowTask(s: DeliveryStack, eventId: string, subscriptionId: string) {
  const handle = s.app.temporal.client.workflow.getHandle(deliveryWorkflowId(deliveryIdOf(eventId, subscriptionId)));
  const events = (await handle.fetchHistory()).events ?? [];
  const started = events.find((e) => e.workflowTaskStartedEventAttributes);
  const completed = events.find((e) => e.workflowTaskCompletedEventAttributes);
  return {
    startedBy: started?.workflowTaskStartedEventAttributes?.identity,
    completedBy: completed?.workflowTaskCompletedEventAttributes?.identity,
  };
}

describe('eager start: the API hosts a delivery worker (HERALD_API_WORKER_SLOTS=4)', () => {
  let s: DeliveryStack;
  before(async () => {
    // No other worker: every delivery of this stack is run by the API process.
    s = await startDeliveryStack({ env: { HERALD_API_WORKER_SLOTS: '4' }, inProcessWorker: false });
    assert.ok(s.app.apiWorker, 'the API hosts a worker');
    assert.equal(await s.app.apiWorker.running, true);
  });
  after(async () => s.stop());

  it('starts a published event’s delivery eagerly on the API’s worker and delivers it signed', async () => {
    const subscription = await s.subscribe('/eager');
    const eventId = await s.publish();
    const [request] = await eventually(() => (s.requestsTo('/eager').length ? s.requestsTo('/eager') : undefined));
    assert.equal(assertSignedDelivery(request!, subscription.publicKey).id, eventId);
    await eventually(async () => ((await s.deliveriesOf(eventId))[0]?.status === 'succeeded' ? true : undefined));

    const first = await firstWorkflowTask(s, eventId, subscription.id);
    // Eager: the task was started by the start request itself (its client's identity), not by a poll, and the
    // API's worker completed it. A polled task would name the poller (apiWorkerIdentity) as its starter.
    assert.equal(first.startedBy, eagerStartIdentity(), 'the first task came back in the start response');
    assert.equal(first.completedBy, apiWorkerIdentity());
  });

  it('closes with the app: the worker stops and starts go the normal way', async () => {
    const worker = s.app.apiWorker!;
    assert.notEqual(worker.eagerClient(), null);
    await worker.close();
    assert.equal(worker.eagerClient(), null);
    await worker.close(); // idempotent: the app's onClose calls it again
  });
});

describe('eager start off (HERALD_API_WORKER_SLOTS=0)', () => {
  let s: DeliveryStack;
  before(async () => {
    s = await startDeliveryStack({ env: { HERALD_API_WORKER_SLOTS: '0' } });
  });
  after(async () => s.stop());

  it('starts deliveries normally and the worker process delivers them', async () => {
    assert.equal(s.app.apiWorker, null);
    const subscription = await s.subscribe('/normal');
    const eventId = await s.publish();
    await eventually(() => (s.requestsTo('/normal').length ? true : undefined));
    const first = await firstWorkflowTask(s, eventId, subscription.id);
    assert.ok(first.startedBy, 'a polling worker took the first task');
    assert.ok(![apiWorkerIdentity(), eagerStartIdentity()].includes(first.startedBy));
  });
});
