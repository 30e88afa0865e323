import type { DeliveryStatus } from '../src/domain/delivery-vocabulary.js';
import type { DeliveryDoc, EventDoc, SubscriptionDoc } from '../src/store/documents.js';
import type { Store } from '../src/store/index.js';
import type { AttemptObserver, DeliveryLogContext } from '../src/telemetry/attempt-observer.js';

// An event id is unique across integrators, but a producer may send integrator A's id again for integrator B: the
// ingest answers 409, yet it may have started B's deliveries first (it hands off before it stores, and a concurrent
// insert can win after its check), and a delivery of B's may name A's event. The attempt reads events by id alone,
// so it is where this is settled for every path (first attempt, schedule, manual retry, campaign): nothing of the
// event is signed or sent (docs/events.md, "An event id of another integrator").

export const FOREIGN_EVENT_REASON = 'event_of_another_integrator';

/** Whether the event belongs to another integrator than the delivery (or its subscription). */
export const isForeignEvent = (event: EventDoc, delivery: DeliveryDoc, subscription: SubscriptionDoc | null) =>
  event.integratorId !== delivery.integratorId ||
  (subscription !== null && subscription.integratorId !== delivery.integratorId);

export interface ForeignEventDeps {
  readonly deliveries: Store['deliveries'];
  readonly now: () => Date;
  readonly logError: (message: string, fields: Record<string, unknown>) => void;
  readonly observer?: AttemptObserver;
}

/**
 * Ends the delivery `failed` without a request. A stored delivery (made before this check existed, or by a run
 * that lost the race) is written `failed` with the reason, so its integrator sees why a retry sends nothing; a
 * handed-off one that has no record yet gets none, so no listing of its integrator ever shows it.
 */
export async function refuseForeignEvent(
  deps: ForeignEventDeps,
  delivery: DeliveryDoc,
  event: EventDoc,
  stored: boolean,
  ctx: DeliveryLogContext,
): Promise<DeliveryStatus> {
  deps.logError('event of another integrator: delivery failed without a request', {
    ...ctx,
    eventIntegratorId: event.integratorId,
  });
  const status = stored ? await deps.deliveries.fail(delivery, FOREIGN_EVENT_REASON, deps.now()) : 'failed';
  deps.observer?.finished(ctx, status, status === 'failed' ? FOREIGN_EVENT_REASON : 'cancelled_during_attempt');
  return status;
}
