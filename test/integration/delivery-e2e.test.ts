// End to end on the real Temporal dev server: events published through the admin API reach subscriptions made
// through the integrator API, signed, retried by hand, blocked on DNS rebinding, cancelled by a DELETE.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { deliveryWorkflowId } from '../../workflows/messages.js';
import { searchAttributes } from '../../workflows/search-attributes.js';
import { assertSignedDelivery, eventually, lifecycleEvent } from '../helpers/deliveries.js';
import { startDeliveryStack, type DeliveryStack } from '../helpers/delivery-stack.js';
import { startHttpsReceiver, type RecordedRequest } from '../helpers/receiver.js';
import { eventsOfType } from '../helpers/temporal.js';

describe('delivery end to end (dev server, worker, HTTPS receiver)', () => {
  let s: DeliveryStack;
  before(async () => {
    s = await startDeliveryStack();
  });
  after(async () => s.stop());

  /** The delivery of `eventId` to `subscriptionId` once `ready` holds for it. */
  const deliveryWhen = (
    eventId: string,
    subscriptionId: string,
    ready: (d: { attemptCount: number; status: string }) => boolean,
  ) =>
    eventually(async () => {
      const [d] = await s.deliveriesOf(eventId, subscriptionId);
      return d && ready(d) ? d : undefined;
    });

  it('delivers a published event to both matching subscriptions, signed, and not to the other one', async () => {
    const all = await s.subscribe('/all');
    const listed = await s.subscribe('/listed', ['customer.created', 'customer.active']);
    const other = await s.subscribe('/other', ['transaction.completed']);
    const eventId = await s.publish('customer.created');

    const [a, b] = await eventually(() => {
      const got = [s.requestsTo('/all')[0], s.requestsTo('/listed')[0]];
      return got.every(Boolean) ? (got as RecordedRequest[]) : undefined;
    });
    assert.equal(assertSignedDelivery(a!, all.publicKey).id, eventId);
    assert.equal(assertSignedDelivery(b!, listed.publicKey).id, eventId);
    assert.equal(a!.headers['x-service-webhook-key-id'], all.keyId);
    assert.equal(a!.body.toString('utf8'), (await s.app.store.events.findById(eventId))?.body, 'the stored bytes');
    const deliveries = await eventually(async () => {
      const found = await s.deliveriesOf(eventId);
      return found.length === 2 && found.every((d) => d.status === 'succeeded') ? found : undefined;
    });
    assert.deepEqual(deliveries.map((d) => d.subscriptionId).sort(), [all.id, listed.id].sort());
    assert.equal(s.requestsTo('/other').length, 0);
    assert.deepEqual(await s.deliveriesOf(eventId, other.id), []);
  });

  it('retries by hand at once, keeps the body byte-identical, and re-runs a terminal delivery once', async () => {
    s.answers.set('/flaky', 500);
    const subscription = await s.subscribe('/flaky');
    const eventId = await s.publish();
    const first = await deliveryWhen(eventId, subscription.id, (d) => d.attemptCount === 1);
    assert.equal(first.status, 'pending');
    assert.ok(first.nextAttemptAt && Date.parse(first.nextAttemptAt) > Date.now() + 20_000, 'next in ~30 s');

    const started = Date.now();
    assert.equal((await s.alice.client.retryDelivery(first.id)).id, first.id);
    await eventually(() => (s.requestsTo('/flaky').length >= 2 ? true : undefined));
    assert.ok(Date.now() - started < 10_000, 'attempted at once, not after the 30 s wait');

    // As the integrator would: retry once the delivery shows attempt 2 (a request that reaches attempt 2 before its
    // record is served by it, and gets no attempt of its own).
    await deliveryWhen(eventId, subscription.id, (d) => d.attemptCount === 2);
    s.answers.set('/flaky', 204);
    assert.equal((await s.alice.client.retryDelivery(first.id)).status, 'pending');
    const done = await deliveryWhen(eventId, subscription.id, (d) => d.status === 'succeeded');
    assert.equal(done.attemptCount, 3);
    const detail = await s.alice.client.getDelivery(first.id);
    assert.deepEqual(
      detail.attempts.map((x) => [x.attemptNumber, x.outcome, x.actor]),
      [
        [1, 'http_error', 'system'],
        [2, 'http_error', 'manual'],
        [3, 'succeeded', 'manual'],
      ],
    );

    // A terminal delivery: one more attempt in a new run of the same workflow id.
    assert.equal((await s.alice.client.retryDelivery(first.id)).status, 'pending');
    await deliveryWhen(eventId, subscription.id, (d) => d.status === 'succeeded' && d.attemptCount === 4);
    const bodies = s.requestsTo('/flaky').map((r) => r.body);
    assert.equal(bodies.length, 4);
    for (const body of bodies) assert.ok(body.equals(bodies[0]!), 'byte-identical on every attempt');

    const handle = s.app.temporal.client.workflow.getHandle(deliveryWorkflowId(first.id));
    // The record is written by the activity, the search attributes by the workflow task after it: wait for those (the
    // new run may first show what the last one ended with: succeeded after 3 attempts).
    const description = await eventually(async () => {
      const d = await handle.describe();
      const shown = d.typedSearchAttributes;
      const final = shown.get(searchAttributes.deliveryStatus) === 'succeeded';
      return final && shown.get(searchAttributes.attemptCount) === 4 ? d : undefined;
    });
    assert.equal(description.typedSearchAttributes.get(searchAttributes.subscriptionId), subscription.id);
  });

  it('blocks a callback name that re-resolves to a private address at delivery time, connecting nowhere', async () => {
    const lonely = await startHttpsReceiver(); // its own port, so its connection count is this test's alone
    try {
      const subscription = await s.subscribe('/rebind', undefined, 'rebind.example.com', lonely.port);
      const eventId = await s.publish();
      const delivery = await deliveryWhen(eventId, subscription.id, (d) => d.attemptCount === 1);
      const detail = await s.alice.client.getDelivery(delivery.id);
      assert.equal(detail.attempts[0]?.outcome, 'blocked');
      assert.equal(detail.attempts[0]?.address, null);
      assert.equal(detail.status, 'pending', 'blocked is a failure: it follows the schedule');
      assert.equal(lonely.connections, 0);
    } finally {
      await lonely.close();
    }
  });

  it('cancels a pending delivery when its subscription is deleted; its workflow ends without a request', async () => {
    s.answers.set('/deleted', 503);
    const subscription = await s.subscribe('/deleted');
    const eventId = await s.publish();
    const pending = await deliveryWhen(eventId, subscription.id, (d) => d.attemptCount === 1);
    await s.alice.client.deleteSubscription(subscription.id);
    const handle = s.app.temporal.client.workflow.getHandle(deliveryWorkflowId(pending.id));
    assert.deepEqual(await handle.result(), { status: 'cancelled', attempts: 1 });
    // Ended by the cancel signal itself: no activity was scheduled to discover the cancellation.
    const events = (await handle.fetchHistory()).events;
    assert.equal(eventsOfType(events, 'activityTaskScheduledEventAttributes').length, 1);
    const signals = eventsOfType(events, 'workflowExecutionSignaledEventAttributes');
    assert.deepEqual(
      signals.map((e) => e.workflowExecutionSignaledEventAttributes?.signalName),
      ['cancel'],
    );
    assert.equal((await handle.describe()).typedSearchAttributes.get(searchAttributes.deliveryStatus), 'cancelled');
    const record = await s.app.store.deliveries.findById(pending.id);
    assert.equal(record?.status, 'cancelled');
    assert.equal(record?.terminalReason, 'subscription_deleted');
    assert.equal(s.requestsTo('/deleted').length, 1, 'no request after the DELETE');
  });

  it('delivers once an event whose workflow started before it was stored (the API died in between)', async () => {
    const subscription = await s.subscribe('/late-event', ['customer.rejected']);
    const event = lifecycleEvent(s.alice.integratorId, 'customer.rejected');
    const started = await s.app.deliveryService.fanOut.handOff(event); // the workflows are started, then "the API died" before storing the event
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(s.requestsTo('/late-event').length, 0, 'nothing is sent for an event that is not stored');
    await s.app.store.events.insertOnce(event, undefined, started); // the producer's re-submission stores it
    await s.app.deliveryService.fanOut.handOff(event); // and hands it off again, which starts nothing twice
    await eventually(() => (s.requestsTo('/late-event').length === 1 ? true : undefined));
    const [delivery] = await s.deliveriesOf(event._id, subscription.id);
    assert.equal(delivery?.status, 'succeeded');
    await new Promise((r) => setTimeout(r, 500));
    assert.equal(s.requestsTo('/late-event').length, 1, 'delivered once');
  });
});
