import { randomUUID } from 'node:crypto';
import { WithStartWorkflowOperation, WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import { heraldEventDoc } from '../domain/event-record.js';
import { TEST_EVENT_TYPE } from '../domain/event-types.js';
import { jsonTextOf } from '../domain/json-text.js';
import type { AttemptDoc, DeliveryDoc, EventDoc, SubscriptionDoc } from '../store/documents.js';
import type { Store } from '../store/index.js';
import { deliveryWorkflow } from '../../workflows/delivery.js';
import { attemptResultUpdate } from '../../workflows/messages.js';
import type { AttemptOutcome } from '../domain/delivery-vocabulary.js';
import { deliveryStartOptions } from './start-delivery.js';
import { withTimeout } from '../util/with-timeout.js';

export interface TestSendResult {
  event: EventDoc;
  delivery: DeliveryDoc;
  attempt: AttemptDoc | null;
  /** The first attempt's outcome: without an attempt, `cancelled` (the subscription went) or `signing_key_unavailable`. */
  outcome: AttemptOutcome;
}

/** The body of a test delivery: a §6.4 payload with a `webhook.test` type and a data block that says so. */
function newTestEvent(subscription: SubscriptionDoc, id: string, now: Date): EventDoc {
  const fields = {
    id,
    eventType: TEST_EVENT_TYPE,
    livemode: false,
    integratorId: subscription.integratorId,
    data: jsonTextOf({ message: 'A test delivery from Herald.', subscriptionId: subscription._id }),
  } as const;
  // Test events go to their one subscription only, never through the fan-out.
  return { ...heraldEventDoc(fields, now), sourceSubscriptionId: subscription._id };
}

/** The first attempt of a test delivery whose run has finished, as stored; null when it made none. */
async function earlierAttempt(store: Store, deliveryId: string) {
  const delivery = await store.deliveries.findById(deliveryId);
  const attempt = delivery?.attempts?.['1'] ?? null;
  return delivery && attempt ? { delivery, attempt, outcome: attempt.outcome } : null;
}

/**
 * §4.2: stores a webhook.test event and its delivery, starts the delivery's workflow and waits (update-with-start)
 * until its first attempt has been made. A failed test delivery then follows the normal schedule.
 */
export async function sendTestDelivery(
  deps: { store: Store; client: Client; taskQueue: string },
  subscription: SubscriptionDoc,
  /** The test event's id: derived from an Idempotency-Key, a try after a crashed one finds what that one made. */
  eventId: string = randomUUID(),
): Promise<TestSendResult> {
  const { store, client, taskQueue } = deps;
  const { event } = await store.events.insertOnce(newTestEvent(subscription, eventId, new Date()));
  const delivery = await store.deliveries.createOnce({
    integratorId: subscription.integratorId,
    subscriptionId: subscription._id,
    eventId: event._id,
    eventType: TEST_EVENT_TYPE,
  });
  const start = new WithStartWorkflowOperation(deliveryWorkflow, {
    ...deliveryStartOptions(delivery, taskQueue, {
      deliveryId: delivery._id,
      firstAttemptNumber: 1,
      actor: 'test',
      followSchedule: true,
    }),
    // A try after a crashed one (same event id, so the same delivery): joins its running workflow, and finds the
    // attempt of a finished one in the store (below) rather than starting a second run.
    workflowIdConflictPolicy: 'USE_EXISTING',
    workflowIdReusePolicy: 'REJECT_DUPLICATE',
  });
  let result;
  try {
    result = await client.workflow.executeUpdateWithStart(attemptResultUpdate, {
      args: [1],
      startWorkflowOperation: start,
    });
  } catch (err) {
    const earlier =
      err instanceof WorkflowExecutionAlreadyStartedError ? await earlierAttempt(store, delivery._id) : null;
    if (earlier) return { event, ...earlier };
    // No workflow, no attempt: end the delivery rather than leave it pending with nothing to run it. (The handle
    // promise settles once the start is answered; a failure before any request leaves it unsettled.)
    const started = await withTimeout(
      start.workflowHandle().then(Boolean, () => false),
      1000,
      false,
    );
    if (!started) await store.deliveries.cancel(delivery, 'not_started', new Date());
    throw err;
  }
  const stored = (await store.deliveries.findById(delivery._id)) ?? delivery;
  const attempt = result.attemptId ? (stored.attempts?.['1'] ?? null) : null;
  return { event, delivery: stored, attempt, outcome: result.outcome };
}
