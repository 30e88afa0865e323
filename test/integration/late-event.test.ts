// A first attempt that starts before its event is stored (the API starts the workflow, then stores the event): it is
// made within a poll step of the store, however late, never after the activity retry policy's growing back-off; an
// event never stored gets no request, and the run fails once the hand-off is older than the bound.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ApplicationFailure } from '@temporalio/common';
import { EVENT_NOT_STORED_LIMIT_MS, EVENT_RETRY_DELAY_MS } from '../../activities/event-wait.js';
import { createActivities } from '../../activities/index.js';
import { createWebhookHttpClient } from '../../src/net/http-client.js';
import { callbackUrlPolicyFromConfig } from '../../src/net/policy-from-config.js';
import { deliveryIdOf } from '../../src/store/derived-ids.js';
import { deliveryWorkflowId } from '../../workflows/messages.js';
import { eventually, lifecycleEvent, seedSubscription } from '../helpers/deliveries.js';
import { startDeliveryStack, type DeliveryStack } from '../helpers/delivery-stack.js';
import { eventsOfType } from '../helpers/temporal.js';

describe('a first attempt whose event is stored late (real Temporal, real MongoDB-wire server)', () => {
  let s: DeliveryStack;
  before(async () => {
    s = await startDeliveryStack();
  });
  after(async () => s.stop());

  it('is made within a second of the store, 9 s after its workflow started, and once', async () => {
    const subscription = await s.subscribe('/stored-late', ['customer.rejected']);
    const event = lifecycleEvent(s.alice.integratorId, 'customer.rejected');
    const started = await s.app.deliveryService.fanOut.handOff(event); // the workflow runs; the event is not stored yet
    // 9 s falls in the retry policy's 4 s gap (with the old 1.3 s waits per call, tries at ≈ 0, 2.3, 5.5, then 10.8 s).
    await new Promise((r) => setTimeout(r, 9_000));
    assert.equal(s.requestsTo('/stored-late').length, 0, 'nothing is sent while the event is not stored');
    await s.app.store.events.insertOnce(event, undefined, started);
    const storedAt = Date.now();
    const [request] = await eventually(() => {
      const got = s.requestsTo('/stored-late');
      return got.length > 0 ? got : undefined;
    });
    const lateMs = request!.receivedAt - storedAt;
    assert.ok(lateMs < 1_000, `attempted ${lateMs} ms after the event was stored (bound 1000 ms)`);
    const handle = s.app.temporal.client.workflow.getHandle(
      deliveryWorkflowId(deliveryIdOf(event._id, subscription.id)),
    );
    const history = await eventually(async () => {
      const h = await handle.fetchHistory();
      return eventsOfType(h.events, 'activityTaskCompletedEventAttributes').length > 0 ? h : undefined;
    });
    const [first] = eventsOfType(history.events, 'activityTaskStartedEventAttributes');
    assert.ok(Number(first?.activityTaskStartedEventAttributes?.attempt) > 1, 'the activity was retried meanwhile');
    await new Promise((r) => setTimeout(r, 500));
    assert.equal(s.requestsTo('/stored-late').length, 1, 'delivered once');
  });

  describe('the activity on its own', () => {
    // These calls find no event, so they send nothing; a client of their own all the same.
    const http = createWebhookHttpClient({
      policy: callbackUrlPolicyFromConfig({ HERALD_DNS_STATIC: {}, HERALD_ALLOW_CIDRS: [] }),
      userAgent: 'Herald-test',
    });
    after(async () => http.close());
    const handOffInput = (subscriptionId: string, event: { _id: string; createdAt: Date }) => ({
      deliveryId: deliveryIdOf(event._id, subscriptionId),
      attemptNumber: 1,
      actor: 'system' as const,
      followSchedule: true,
      handOff: {
        eventId: event._id,
        subscriptionId,
        subscriptionVersion: 0,
        integratorId: s.alice.integratorId,
        eventType: 'customer.created' as const,
        createdAt: event.createdAt.toISOString(),
      },
    });
    const activities = (now?: () => Date) =>
      createActivities({
        store: s.app.store,
        vault: s.app.vault,
        http,
        activityAttempt: () => 1,
        ...(now ? { now } : {}),
      });

    it('fails a call that does not find its event as EventNotStored, retried after a short fixed delay', async () => {
      const { subscription } = await seedSubscription(s.app.store, s.app.vault, {
        integratorId: s.alice.integratorId,
        url: `https://hooks.example.com:${s.receiver.port}/never-stored`,
      });
      const event = lifecycleEvent(s.alice.integratorId);
      const began = Date.now();
      const err = await activities()
        .attemptDelivery(handOffInput(subscription._id, event))
        .then(
          () => assert.fail('resolved'),
          (e: unknown) => e,
        );
      assert.ok(err instanceof ApplicationFailure);
      assert.equal(err.type, 'EventNotStored');
      assert.equal(err.nonRetryable, false);
      assert.equal(err.nextRetryDelay, EVENT_RETRY_DELAY_MS, 'not the retry policy back-off');
      const took = Date.now() - began;
      assert.ok(took >= 1_500 && took < 5_000, `waited ${took} ms in the call (≈ 2 s)`);
      assert.equal(s.requestsTo('/never-stored').length, 0);
      assert.equal(await s.app.store.deliveries.findById(deliveryIdOf(event._id, subscription._id)), null);
    });

    it('fails the run (DeliveryNotFound, not retried) once the hand-off is older than the bound', async () => {
      const { subscription } = await seedSubscription(s.app.store, s.app.vault, {
        integratorId: s.alice.integratorId,
        url: `https://hooks.example.com:${s.receiver.port}/never-stored-old`,
      });
      const event = lifecycleEvent(s.alice.integratorId);
      const later = () => new Date(event.createdAt.getTime() + EVENT_NOT_STORED_LIMIT_MS + 1_000);
      await assert.rejects(
        activities(later).attemptDelivery(handOffInput(subscription._id, event)),
        (e: unknown) => e instanceof ApplicationFailure && e.type === 'DeliveryNotFound' && e.nonRetryable,
      );
      assert.equal(s.requestsTo('/never-stored-old').length, 0);
    });
  });
});
