// Signals, updates and queries of the delivery workflow, defined once: the API imports these same constants.
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { AttemptResult, DeliveryState } from './types.js';

/** Business id as workflow id: a second start for the same delivery is rejected, never duplicated. */
export function deliveryWorkflowId(deliveryId: string): string {
  return `delivery:${deliveryId}`;
}

/**
 * Attempt now: cuts the current wait short (the schedule then continues with the next delay). Sent while an
 * attempt runs, it makes the workflow attempt again at once if that attempt fails.
 */
export const retryNowSignal = defineSignal<[]>('retryNow');

/**
 * The delivery was cancelled (its subscription deleted; the record already says so): a waiting run ends at once
 * without another attempt, a running attempt's run ends after it. Runs started before this signal existed treat it
 * as retryNow, which makes their next attempt find the delivery cancelled.
 */
export const cancelSignal = defineSignal<[]>('cancel');

/**
 * Resolves with the result of the attempt with this number once it has finished; the number must belong to this
 * run (≥ the run's `firstAttemptNumber`, else the update is rejected). Fails with type `AttemptNotMade` when the run
 * ends without making it. The test endpoint sends it with update-with-start and `firstAttemptNumber`.
 */
export const attemptResultUpdate = defineUpdate<AttemptResult, [number]>('attemptResult');

/** Status, attempt count, next attempt time and last outcome, for operators. */
export const deliveryStateQuery = defineQuery<DeliveryState>('deliveryState');
