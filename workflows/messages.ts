// Signals, updates and queries of the delivery workflow, defined once: the API imports these same constants.
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { AttemptResult, DeliveryState, RetryAnswer, RetryRequest } from './types.js';

/** Business id as workflow id: a second start for the same delivery is rejected, never duplicated. */
export function deliveryWorkflowId(deliveryId: string): string {
  return `delivery:${deliveryId}`;
}

/**
 * Attempt now: cuts the current wait short (the schedule then continues with the next delay). Sent while an
 * attempt runs, it makes the workflow attempt again at once if that attempt fails. Manual retries use `retryUpdate`
 * since patch `manual-retry-update`; this signal stays for runs and API instances older than that (and, before patch `cancel-signal`, woke a
 * waiting run to see its cancellation).
 */
export const retryNowSignal = defineSignal<[]>('retryNow');

/**
 * Manual retry, sent with update-with-start (USE_EXISTING): answers which attempt serves the request. An attempt in
 * progress serves every request that reaches it before it is recorded (`RetryRequest.recordedAttempts`); otherwise
 * the next attempt starts at once (after the one in flight) and serves all requests until it does. A run that has ended rejects it (`RunClosing`, in the validator): the sender tries again and so
 * starts a new run, never losing the request.
 */
export const retryUpdate = defineUpdate<RetryAnswer, [RetryRequest]>('retry');

/** ApplicationFailure type of a `retryUpdate` rejected because the run has ended. */
export const RUN_CLOSING = 'RunClosing';

/**
 * ApplicationFailure type of an activity whose delivery (or event) does not exist: a permanent fault, which the
 * delivery workflow's retry policy does not retry.
 */
export const DELIVERY_NOT_FOUND = 'DeliveryNotFound';

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

/**
 * The delivery's paused subscription was resumed: a run held by it (its attempt answered `held`) makes that attempt
 * now, with the same number. Sent by the release workflow (workflows/release.ts), oldest delivery first. A run not
 * held ignores it (one sent while its attempt runs lets that attempt, if held, go at once).
 */
export const releaseSignal = defineSignal<[]>('release');

/** Workflow id of the release of a subscription's held deliveries: one at a time per subscription. */
export function releaseWorkflowId(subscriptionId: string): string {
  return `release:${subscriptionId}`;
}

/** Status, attempt count, next attempt time and last outcome, for operators. */
export const deliveryStateQuery = defineQuery<DeliveryState>('deliveryState');

/** Workflow id of the endpoint probe of a subscription Herald paused: one at a time per subscription. */
export function probeWorkflowId(subscriptionId: string): string {
  return `probe:${subscriptionId}`;
}
