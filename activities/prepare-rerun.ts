import { ApplicationFailure } from '@temporalio/activity';
import type { Store } from '../src/store/index.js';
import { DELIVERY_NOT_FOUND } from '../workflows/messages.js';
import type { RerunStart } from '../workflows/types.js';

/**
 * The start of a run made by a manual retry. The delivery's previous run has closed (one run per workflow id at a
 * time), so its record is final: the new run numbers its attempts after the last one, and a terminal delivery is
 * made pending again here — by the run that will attempt it, never by the API, so that no concurrent request can
 * write a stale status over an attempt. A retried call finds it pending already and keeps the schedule: the one
 * trade-off, for a worker lost between this write and its report.
 */
export function createPrepareRerun(deps: { store: Store; now?: () => Date }) {
  const { store, now = () => new Date() } = deps;
  return async function prepareRerun(deliveryId: string): Promise<RerunStart> {
    const delivery = await store.deliveries.findById(deliveryId);
    if (!delivery) throw ApplicationFailure.nonRetryable(`delivery ${deliveryId} not found`, DELIVERY_NOT_FOUND);
    const pending = delivery.status === 'pending';
    if (!pending) await store.deliveries.reopen(delivery, now());
    return { firstAttemptNumber: delivery.attemptCount + 1, followSchedule: pending };
  };
}
