// Issue 15 items 5 and 6 on the real stack: cancel one delivery (idempotent, 409 once finished, its waiting run
// ended at once) and a subscription's delivery summary (counts by status, oldest pending) through HeraldClient.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { HeraldApiError } from '../../src/client/http.js';
import type { Delivery } from '../../src/client/herald-client.js';
import { deliveryWorkflowId } from '../../workflows/messages.js';
import { eventually } from '../helpers/deliveries.js';
import { startDeliveryStack, type DeliveryStack } from '../helpers/delivery-stack.js';
import { seedTerminalDeliveries } from '../helpers/seeded-deliveries.js';

const rejectsWith = async (call: Promise<unknown>, status: number, error: string) =>
  await assert.rejects(call, (err: unknown) => {
    assert.ok(err instanceof HeraldApiError);
    assert.equal(err.status, status);
    assert.equal(err.body?.error, error);
    assert.equal(err.body?.status, status);
    return true;
  });

describe('cancel one delivery; what never got delivered', () => {
  let s: DeliveryStack;
  before(async () => {
    s = await startDeliveryStack();
  });
  after(async () => s.stop());

  /** Publishes an event to the subscription and waits until its first attempt is recorded with this status. */
  async function attempted(subscriptionId: string, status: Delivery['status']): Promise<Delivery> {
    const eventId = await s.publish();
    return await eventually(async () => {
      const [d] = await s.deliveriesOf(eventId, subscriptionId);
      return d && d.attemptCount === 1 && d.status === status ? d : undefined;
    });
  }

  it('cancels a waiting delivery at once, idempotently; 409 once finished; 404 for none', async () => {
    s.answers.set('/cancel-waiting', 500);
    const waiting = await attempted((await s.subscribe('/cancel-waiting')).id, 'pending');
    assert.ok(waiting.nextAttemptAt, 'waiting ~30 s for its second attempt');
    const cancelled = await s.alice.client.cancelDelivery(waiting.id);
    assert.equal(cancelled.status, 'cancelled');
    assert.equal(cancelled.terminalReason, 'cancelled_by_integrator');
    assert.equal(cancelled.nextAttemptAt, null);
    // Its run ends now, not at the next attempt: the cancel signal's path.
    const handle = s.app.temporal.client.workflow.getHandle(deliveryWorkflowId(waiting.id));
    const started = Date.now();
    assert.equal((await handle.result()).status, 'cancelled');
    assert.ok(Date.now() - started < 10_000, 'the waiting run ended at once');
    const again = await s.alice.client.cancelDelivery(waiting.id);
    assert.equal(again.status, 'cancelled', 'cancelling a cancelled delivery answers it');
    assert.equal(again.terminalReason, 'cancelled_by_integrator');
    const stored = await s.alice.client.getDelivery(waiting.id);
    assert.equal(stored.status, 'cancelled');
    assert.equal(stored.attempts.length, 1);
    assert.equal(s.requestsTo('/cancel-waiting').length, 1, 'no further POST');
    const listed = await s.alice.client.listDeliveriesPage({
      subscriptionId: waiting.subscriptionId,
      status: 'cancelled',
    });
    assert.deepEqual(
      listed.deliveries.map((d) => d.id),
      [waiting.id],
      'listed under status=cancelled',
    );

    const succeeded = await attempted((await s.subscribe('/cancel-done')).id, 'succeeded');
    await rejectsWith(s.alice.client.cancelDelivery(succeeded.id), 409, 'delivery_finished');
    assert.equal((await s.alice.client.getDelivery(succeeded.id)).status, 'succeeded', 'left as it was');
    const sub = await s.subscribe('/cancel-failed');
    const [failedId] = await seedTerminalDeliveries(
      s.app.store,
      { id: sub.id, integratorId: s.alice.integratorId },
      1,
      'failed',
      Date.now(),
    );
    await rejectsWith(s.alice.client.cancelDelivery(failedId!), 409, 'delivery_finished');
    assert.equal((await s.alice.client.getDelivery(failedId!)).status, 'failed');
    await rejectsWith(s.alice.client.cancelDelivery('8f14e45f-ceea-467f-a0e6-bb6d4d2b0e0a'), 404, 'not_found');
  });

  it('counts a subscription’s deliveries by status and names its oldest pending one', async () => {
    const subscription = await s.subscribe('/summary');
    const empty = await s.alice.client.deliverySummary(subscription.id);
    assert.deepEqual(empty, {
      subscriptionId: subscription.id,
      counts: { pending: 0, succeeded: 0, failed: 0, cancelled: 0 },
      countLimit: 10_000,
      oldestPending: null,
    });

    s.answers.set('/summary', 204);
    await attempted(subscription.id, 'succeeded');
    s.answers.set('/summary', 500);
    const oldest = await attempted(subscription.id, 'pending');
    await attempted(subscription.id, 'pending');
    const toCancel = await attempted(subscription.id, 'pending');
    await s.alice.client.cancelDelivery(toCancel.id);
    await seedTerminalDeliveries(
      s.app.store,
      { id: subscription.id, integratorId: s.alice.integratorId },
      2,
      'failed',
      Date.now(),
    );

    const summary = await s.alice.client.deliverySummary(subscription.id);
    assert.deepEqual(summary.counts, { pending: 2, succeeded: 1, failed: 2, cancelled: 1 });
    assert.equal(summary.oldestPending?.id, oldest.id);
    assert.equal(summary.oldestPending?.createdAt, oldest.createdAt);
    assert.equal(summary.oldestPending?.attemptCount, 1);
    assert.ok(summary.oldestPending?.nextAttemptAt);

    const other = await s.subscribe('/summary-other');
    assert.equal((await s.alice.client.deliverySummary(other.id)).counts.pending, 0, 'per subscription');
    await rejectsWith(s.alice.client.deliverySummary('8f14e45f-ceea-467f-a0e6-bb6d4d2b0e0a'), 404, 'not_found');
  });
});
