// What both delivery loops share (the released one, delivery-legacy.ts, and the state machine's, delivery-run.ts):
// the activities with their timeouts and retry policy, the check of an attempt number, the Temporal UI's status.
import { proxyActivities, upsertSearchAttributes } from '@temporalio/workflow';
import type { Activities } from '../activities/index.js';
import { ATTEMPT_HEARTBEAT_TIMEOUT_MS, ATTEMPT_START_TO_CLOSE_MS } from '../src/domain/attempt-bounds.js';
import type { ShownStatus } from './delivery-machine.js';
import { DELIVERY_NOT_FOUND } from './messages.js';
import { searchAttributes } from './search-attributes.js';

/** Error types of permanent infrastructure faults: retrying the activity cannot help. */
const NON_RETRYABLE_ACTIVITY_ERRORS = [DELIVERY_NOT_FOUND] as const;

// Receiver failures come back as values; the retry policy covers only our own faults (database down, …).
// No maximumAttempts: an infrastructure fault is retried until it is fixed. The timeouts match the attempt's own
// bounds (src/domain/attempt-bounds.ts): an attempt lost with its worker is retried once it has been silent for the
// heartbeat timeout (≈ 11 s after a kill -9), a stuck one after 30 s. Timeouts are not replayed commands: old
// histories replay unchanged (test/integration/workflow-replay.test.ts).
export const attemptActivities = proxyActivities<Activities>({
  startToCloseTimeout: ATTEMPT_START_TO_CLOSE_MS,
  heartbeatTimeout: ATTEMPT_HEARTBEAT_TIMEOUT_MS,
  retry: {
    initialInterval: '1s',
    backoffCoefficient: 2,
    maximumInterval: '60s',
    nonRetryableErrorTypes: [...NON_RETRYABLE_ACTIVITY_ERRORS],
  },
});

/** The attemptResult update's validator: the number must be one this run can make. */
export function validateAttemptNumber(attemptNumber: number, firstAttemptNumber: number): void {
  if (!Number.isInteger(attemptNumber) || attemptNumber < 1) {
    throw new Error(`attemptNumber must be an integer ≥ 1, got ${String(attemptNumber)}`);
  }
  if (attemptNumber < firstAttemptNumber) {
    throw new Error(`attempt ${attemptNumber} belongs to an earlier run: this run starts at ${firstAttemptNumber}`);
  }
}

/**
 * The status as the Temporal UI shows it (HeraldDeliveryStatus): `held` while the paused subscription holds the run,
 * `waiting` while a capacity guard does (patch attempt-steps), and the attempts made.
 */
export function recordSearchAttributes(status: ShownStatus, attemptCount: number): void {
  upsertSearchAttributes([
    { key: searchAttributes.deliveryStatus, value: status },
    { key: searchAttributes.attemptCount, value: attemptCount },
  ]);
}
