import { randomUUID } from 'node:crypto';
import { WithStartWorkflowOperation, type Client } from '@temporalio/client';
import { heraldEventDoc } from '../domain/event-record.js';
import { TEST_EVENT_TYPE } from '../domain/event-types.js';
import { jsonTextOf } from '../domain/json-text.js';
import type { AttemptDoc, DeliveryDoc, EventDoc, SubscriptionDoc } from '../store/documents.js';
import type { Store } from '../store/index.js';
import { deliveryWorkflow } from '../../workflows/delivery.js';
import { attemptResultUpdate } from '../../workflows/messages.js';
import { deliveryStartOptions } from './start-delivery.js';
import { withTimeout } from '../util/with-timeout.js';

export interface TestSendResult {
  event: EventDoc;
  delivery: DeliveryDoc;
  attempt: AttemptDoc | null;
}

/** The body of a test delivery: a §6.4 payload with a `webhook.test` type and a data block that says so. */
function newTestEvent(subscription: SubscriptionDoc, now: Date): EventDoc {
  const fields = {
    id: randomUUID(),
    eventType: TEST_EVENT_TYPE,
    livemode: false,
    integratorId: subscription.integratorId,
    data: jsonTextOf({ message: 'A test delivery from Herald.', subscriptionId: subscription._id }),
  } as const;
  // Test events go to their one subscription only, never through the fan-out.
  return { ...heraldEventDoc(fields, now), sourceSubscriptionId: subscription._id };
}

/**
 * §4.2: stores a webhook.test event and its delivery, starts the delivery's workflow and waits (update-with-start)
 * until its first attempt has been made. A failed test delivery then follows the normal schedule.
 */
export async function sendTestDelivery(
  deps: { store: Store; client: Client; taskQueue: string },
  subscription: SubscriptionDoc,
): Promise<TestSendResult> {
  const { store, client, taskQueue } = deps;
  const event = newTestEvent(subscription, new Date());
  await store.events.insertOnce(event);
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
    workflowIdConflictPolicy: 'FAIL',
  });
  let result;
  try {
    result = await client.workflow.executeUpdateWithStart(attemptResultUpdate, {
      args: [1],
      startWorkflowOperation: start,
    });
  } catch (err) {
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
  return { event, delivery: stored, attempt: result.attemptId ? (stored.attempts?.['1'] ?? null) : null };
}
