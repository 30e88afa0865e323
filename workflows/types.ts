// The contract between the delivery workflow, its activity and the API. Types only: safe to import anywhere.
import type { Actor, AttemptOutcome, DeliveryStatus, WaitReason } from '../src/domain/delivery-vocabulary.js';
import type { HistoryEventType } from '../src/domain/event-types.js';

/**
 * What the fan-out knew when it started a delivery's workflow: the first attempt needs no read of the delivery
 * (the fan-out writes none; the attempt's record creates it) nor, made soon enough, of the subscription. No event body:
 * bodies stay out of histories.
 */
export interface HandOff {
  readonly eventId: string;
  readonly subscriptionId: string;
  /** The subscription's version the event was matched against. */
  readonly subscriptionVersion: number;
  readonly integratorId: string;
  readonly eventType: HistoryEventType;
  /** The event's createdAt (ISO), which is also the delivery's. */
  readonly createdAt: string;
  /** An ordered subscription's: the delivery's place in its lane (src/store/fifo-lanes-repo.ts); absent otherwise. */
  readonly fifoSeq?: number;
}

/** Input of the delivery workflow (workflow id `delivery:<deliveryId>`). */
export interface DeliveryWorkflowInput {
  readonly deliveryId: string;
  /** Number of the first attempt this run makes: 1 for a new delivery, attemptCount + 1 for a manual re-run. */
  readonly firstAttemptNumber: number;
  readonly actor: Actor;
  /**
   * true: failures follow the retry schedule (a new delivery, or a pending one whose workflow is gone).
   * false: a manual re-run of a terminal delivery makes one attempt and ends (docs/deliveries.md: manual retry).
   */
  readonly followSchedule: boolean;
  /** Set by the fan-out only; the run's first attempt passes it on. */
  readonly handOff?: HandOff;
}

/** What a run started by a manual retry reads from the records before its first attempt (prepareRerun). */
export interface RerunStart {
  /** The number after the last recorded attempt: runs never reuse one. */
  readonly firstAttemptNumber: number;
  /** The delivery was pending (its schedule continues); a terminal one gets one attempt without a schedule. */
  readonly followSchedule: boolean;
}

/**
 * A manual retry (`retryUpdate`): how many attempts the records showed when the API took the request. An attempt
 * already among them has ended for the integrator, even while its run has not yet seen it finish: it cannot serve
 * the request. Absent from API instances older than it (the attempt in flight then serves the request, as before).
 */
export interface RetryRequest {
  readonly recordedAttempts: number;
}

/** The answer to a manual retry (`retryUpdate`): the attempt that serves the request. */
export interface RetryAnswer {
  readonly attemptNumber: number;
}

/** Input of the one activity per attempt: sign, POST, record the attempt and update the delivery in one go. */
export type AttemptInput = {
  readonly deliveryId: string;
  readonly attemptNumber: number;
  readonly actor: Actor;
  /** The run's hand-off, on its first attempt only. */
  readonly handOff?: HandOff;
  /**
   * The run waits for a release when its subscription is paused (patch `pause-hold`): a scheduled attempt then
   * answers outcome `held` without a request. Runs older than that make their attempts as before.
   */
  readonly holdWhenPaused?: boolean;
} & (
  | {
      /** The run's followSchedule: the attempt rule (src/domain/attempt-rule.ts) decides the rest. */
      readonly followSchedule: boolean;
    }
  | {
      /**
       * As the workflow before the attempt rule sent it (runs started then, replayed by a newer worker): seconds
       * until the next attempt if this one fails, null when it was the run's last.
       */
      readonly retryInSeconds: number | null;
    }
);

export interface AttemptResult {
  /** The recorded attempt; null when no attempt was made (outcome `cancelled`). */
  readonly attemptId: string | null;
  readonly attemptNumber: number;
  readonly outcome: AttemptOutcome;
  readonly statusCode: number | null;
  /** Status the activity wrote on the delivery: pending | succeeded | failed | cancelled. */
  readonly deliveryStatus: DeliveryStatus;
  /**
   * While pending: seconds to wait before the next attempt, as the attempt rule decided; null otherwise. Absent from
   * the results of activities older than the rule (kept in recorded histories).
   */
  readonly retryInSeconds?: number | null;
  /**
   * While pending: milliseconds from the activity's return until the next attempt is due (the answer's time +
   * retryInSeconds, as recorded on the delivery); the run waits that long (waitBeforeNextMs). Absent from older results.
   */
  readonly nextAttemptInMs?: number | null;
}

/** Input of `runAttempt`, the attempt of runs with patch `attempt-steps`: a paused subscription always holds them. */
export interface StepInput {
  readonly deliveryId: string;
  readonly attemptNumber: number;
  readonly actor: Actor;
  /** The run's followSchedule: the attempt rule (src/domain/attempt-rule.ts) decides the rest. */
  readonly followSchedule: boolean;
  /** The run's hand-off, on its first attempt only, before any wait. */
  readonly handOff?: HandOff;
  /** The hand-off's place in its ordered subscription's lane, on every attempt of the run (absent: no order). */
  readonly fifo?: {
    readonly subscriptionId: string;
    readonly seq: number;
    /** This attempt follows a wait for the turn that ended by its timer (no release came): it looks after the turn. */
    readonly recheck?: boolean;
  };
}

/**
 * What one `runAttempt` came to: `sent`, a request went (or its connection, TLS or resolution failed) and is recorded
 * with its effect on the delivery; `end`, the delivery ended without a request (cancelled, signing key unavailable,
 * an unrecordable earlier POST); `wait`, nothing was sent and nothing recorded as an attempt: try the same attempt
 * again after `waitMs` (null: when the release signal comes).
 */
export type AttemptStep =
  | { readonly step: 'sent' | 'end'; readonly result: AttemptResult }
  | { readonly step: 'wait'; readonly reason: WaitReason; readonly waitMs: number | null };

/** What `deliveryStateQuery` answers: the run as the workflow sees it, for operators. */
export interface DeliveryState {
  readonly status: DeliveryStatus;
  /** Attempts made so far, earlier runs included (the number of the last attempt made). */
  readonly attemptCount: number;
  /** ISO time of the next scheduled attempt while the workflow waits for it; null otherwise. */
  readonly nextAttemptAt: string | null;
  readonly lastOutcome: AttemptOutcome | null;
  /** true while the run waits for its paused subscription to be resumed; absent in runs older than patch pause-hold. */
  readonly held?: boolean;
  /** Why the run waits without a request now (nextAttemptAt says until when); absent when it does not. */
  readonly waitReason?: WaitReason;
}

/** Input of the release workflow (workflows/release.ts), also of each of its continue-as-new runs. */
export interface ReleaseInput {
  readonly subscriptionId: string;
  /** Deliveries released per second, at most. */
  readonly ratePerSecond: number;
  /** Keyset position of the last delivery released by the previous run; null at the start of a pass. */
  readonly after: { readonly createdAt: string; readonly id: string } | null;
  /** The second pass, after the attempt bound: releases deliveries held by attempts that ran across the resume. */
  readonly finalPass: boolean;
  /** Released so far (all runs). */
  readonly released: number;
}

/** What one page of a release did; `stop` when the subscription is paused again, disabled or gone. */
export interface ReleasedPage {
  readonly stop: boolean;
  /** Held deliveries found (the page is full when this is the limit). */
  readonly count: number;
  /** Of those, signalled (the others' runs had ended). */
  readonly released: number;
  /** Keyset position of the page's last delivery. */
  readonly last: { readonly createdAt: string; readonly id: string } | null;
}

/** Result of the delivery workflow. */
export interface DeliveryWorkflowResult {
  readonly status: DeliveryStatus;
  /** Attempts made by this run. */
  readonly attempts: number;
}

export interface ProbeInput {
  readonly subscriptionId: string;
  /** Seconds between two probes (HERALD_HEALTH_PROBE_SECONDS). */
  readonly intervalSeconds: number;
  /** Probes left before the probe gives up (its life cap over every run). */
  readonly probesLeft: number;
}
