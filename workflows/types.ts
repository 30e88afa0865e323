// The contract between the delivery workflow, its activity and the API. Types only: safe to import anywhere.

/** Who caused an attempt: the schedule, an integrator's manual retry, or the test endpoint. */
export type Actor = 'system' | 'manual' | 'test';

/** Input of the delivery workflow (workflow id `delivery:<deliveryId>`). */
export interface DeliveryWorkflowInput {
  readonly deliveryId: string;
  /**
   * Number of the first attempt this run makes: 1 for a new delivery. A run started by a manual retry reads it from
   * the records instead (patch `manual-retry-update`); the API's attemptCount + 1 is then only a hint.
   */
  readonly firstAttemptNumber: number;
  readonly actor: Actor;
  /**
   * true: failures follow the retry schedule (a new delivery, or a pending one whose workflow is gone).
   * false: a manual re-run of a terminal delivery makes one attempt and ends (docs/deliveries.md: manual retry).
   */
  readonly followSchedule: boolean;
}

/** What a run started by a manual retry reads from the records before its first attempt (prepareRerun). */
export interface RerunStart {
  /** The number after the last recorded attempt: runs never reuse one. */
  readonly firstAttemptNumber: number;
  /** The delivery was pending (its schedule continues); a terminal one gets one attempt without a schedule. */
  readonly followSchedule: boolean;
}

/** The answer to a manual retry (`retryUpdate`): the attempt that serves the request. */
export interface RetryAnswer {
  readonly attemptNumber: number;
}

/** Input of the one activity per attempt: sign, POST, record the attempt and update the delivery in one go. */
export interface AttemptInput {
  readonly deliveryId: string;
  readonly attemptNumber: number;
  readonly actor: Actor;
  /** Seconds until the next attempt if this one fails; null when it is the last (failure is then terminal). */
  readonly retryInSeconds: number | null;
}

/** Terminal failure outcomes and attempt outcomes are documented in docs/deliveries.md. */
export type AttemptOutcome =
  | 'succeeded'
  | 'http_error' // non-2xx answer (3xx included: redirects are not followed)
  | 'timeout'
  | 'connection_error' // refused, reset, DNS failure, TLS failure
  | 'blocked' // the callback host resolved to an address the policy forbids
  | 'cancelled' // the subscription was deleted or disabled: no request was made
  | 'signing_key_unavailable'; // the signing key could not be opened: no request was made, the delivery failed

export interface AttemptResult {
  /** The recorded attempt; null when no attempt was made (outcome `cancelled`). */
  readonly attemptId: string | null;
  readonly attemptNumber: number;
  readonly outcome: AttemptOutcome;
  readonly statusCode: number | null;
  /** Status the activity wrote on the delivery: pending | succeeded | failed | cancelled. */
  readonly deliveryStatus: DeliveryStatus;
}

export type DeliveryStatus = 'pending' | 'succeeded' | 'failed' | 'cancelled';

/** What `deliveryStateQuery` answers: the run as the workflow sees it, for operators. */
export interface DeliveryState {
  readonly status: DeliveryStatus;
  /** Attempts made so far, earlier runs included (the number of the last attempt made). */
  readonly attemptCount: number;
  /** ISO time of the next scheduled attempt while the workflow waits for it; null otherwise. */
  readonly nextAttemptAt: string | null;
  readonly lastOutcome: AttemptOutcome | null;
}

/** Result of the delivery workflow. */
export interface DeliveryWorkflowResult {
  readonly status: DeliveryStatus;
  /** Attempts made by this run. */
  readonly attempts: number;
}
