// The test endpoint (§4.2), the delivery listing and manual retry's error answers, end to end on the dev server.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { HeraldApiError } from '../../src/client/http.js';
import { deliveryWorkflowId } from '../../workflows/messages.js';
import { assertSignedDelivery, eventually } from '../helpers/deliveries.js';
import { startDeliveryStack, type DeliveryStack } from '../helpers/delivery-stack.js';

const unknownId = '00000000-0000-4000-8000-000000000000';
const isError = (status: number, body?: string) => (err: unknown) =>
  err instanceof HeraldApiError && err.status === status && (body === undefined || JSON.stringify(err.body) === body);

describe('test deliveries, the delivery listing and retry errors (dev server)', () => {
  let s: DeliveryStack;
  before(async () => {
    s = await startDeliveryStack();
  });
  after(async () => s.stop());

  it('sends a signed test delivery and answers §2.5 with the real attempt', async () => {
    const subscription = await s.subscribe('/test-endpoint', ['transaction.completed']);
    const res = await s.alice.client.sendTestDelivery(subscription.id);
    assert.equal(res.event.eventType, 'webhook.test');
    assert.equal(res.event.sourceType, 'subscription');
    assert.equal(res.event.sourceId, subscription.id);
    assert.equal(res.event.integratorId, s.alice.integratorId);
    assert.equal(res.delivery.eventId, res.event.id);
    assert.equal(res.delivery.subscriptionId, subscription.id);
    assert.deepEqual([res.delivery.status, res.delivery.attemptCount], ['succeeded', 1]);
    assert.deepEqual([res.attempt.outcome, res.attempt.statusCode, res.attempt.actor], ['succeeded', 204, 'test']);
    assert.equal(res.attempt.attemptNumber, 1);
    assert.ok(Number.isInteger(res.attempt.latencyMs) && res.attempt.latencyMs >= 0);
    assert.equal(res.attempt.signingKeyId, subscription.keyId);
    const [received] = s.requestsTo('/test-endpoint');
    assert.ok(received, 'the receiver had it before the answer');
    assert.deepEqual(assertSignedDelivery(received, subscription.publicKey), res.event.payload);
    assert.equal(received.headers['x-service-webhook-timestamp'], res.attempt.signedTimestamp);
    // Test events stay out of the lifecycle history unless asked for.
    const history = await s.alice.client.listEventsPage();
    assert.ok(!history.events.some((e) => e.id === res.event.id));
    const tests = await s.alice.client.listEventsPage({ eventType: 'webhook.test' });
    assert.ok(tests.events.some((e) => e.id === res.event.id));
  });

  it('answers a failed test delivery with its attempt; the delivery then follows the schedule', async () => {
    s.answers.set('/test-fails', 503);
    const subscription = await s.subscribe('/test-fails');
    const res = await s.alice.client.sendTestDelivery(subscription.id);
    assert.deepEqual([res.attempt.outcome, res.attempt.statusCode], ['http_error', 503]);
    assert.equal(res.delivery.status, 'pending');
    assert.ok(res.delivery.nextAttemptAt && Date.parse(res.delivery.nextAttemptAt) > Date.now() + 20_000);
  });

  it('answers 404 on the test endpoint for an unknown or deleted subscription', async () => {
    const notFound = '{"error":"not_found","status":404}';
    await assert.rejects(s.alice.client.sendTestDelivery(unknownId), isError(404, notFound));
    const deleted = await s.subscribe('/gone');
    await s.alice.client.deleteSubscription(deleted.id);
    await assert.rejects(s.alice.client.sendTestDelivery(deleted.id), isError(404, notFound));
  });

  it('lists deliveries newest first with filters and a cursor bound to them', async () => {
    await s.subscribe('/list-a', ['customer.active']);
    await s.subscribe('/list-b', ['customer.active']);
    const eventId = await s.publish('customer.active');
    const all = await eventually(async () => {
      const found = await s.deliveriesOf(eventId);
      return found.length >= 3 ? found : undefined; // list-a, list-b and the catch-all test-fails
    });
    const paged: string[] = [];
    for await (const d of s.alice.client.listDeliveries({ eventId, limit: 1 })) paged.push(d.id);
    assert.deepEqual(
      paged,
      all.map((d) => d.id),
    );
    const first = await s.alice.client.listDeliveriesPage({ eventId, limit: 1 });
    assert.ok(first.nextCursor);
    await assert.rejects(
      s.alice.client.listDeliveriesPage({ cursor: first.nextCursor, limit: 1 }),
      (err: unknown) => isError(400)(err) && (err as HeraldApiError).body?.error === 'invalid_cursor',
    );
    for (const query of [{ status: 'done' }, { eventId: 'nope' }, { limit: '0' }, { color: 'red' }]) {
      await assert.rejects(s.alice.client.request('GET', '/v1/webhooks/deliveries', { query }), isError(400));
    }
  });

  it('answers 404 to a retry of an unknown delivery and 409 once its subscription is deleted', async () => {
    await assert.rejects(s.alice.client.retryDelivery(unknownId), isError(404, '{"error":"not_found","status":404}'));
    const subscription = await s.subscribe('/retry-gone');
    const res = await s.alice.client.sendTestDelivery(subscription.id);
    await s.alice.client.deleteSubscription(subscription.id);
    await assert.rejects(
      s.alice.client.retryDelivery(res.delivery.id),
      (err: unknown) => isError(409)(err) && (err as HeraldApiError).body?.error === 'subscription_deleted',
    );
  });

  it('retries a pending delivery whose workflow was terminated: a new run, numbered after the last attempt', async () => {
    s.answers.set('/terminated', 500);
    const subscription = await s.subscribe('/terminated');
    const { delivery } = await s.alice.client.sendTestDelivery(subscription.id);
    await s.app.temporal.client.workflow.getHandle(deliveryWorkflowId(delivery.id)).terminate('by an operator');
    s.answers.set('/terminated', 204);
    await s.alice.client.retryDelivery(delivery.id);
    const done = await eventually(async () => {
      const d = await s.alice.client.getDelivery(delivery.id);
      return d.status === 'succeeded' ? d : undefined;
    });
    assert.deepEqual(
      done.attempts.map((a) => `${a.attemptNumber} ${a.outcome} ${a.actor}`),
      ['1 http_error test', '2 succeeded manual'],
    );
  });
});
