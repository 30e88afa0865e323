// The delivery run as a state machine (patch `attempt-steps`): what the run knows, what each message and each attempt
// step does to it, and what the run does next. Pure and deterministic (no Temporal call): workflows/delivery-run.ts
// drives it with activities, timers and conditions; test/unit/delivery-machine.test.ts drives it by hand. A new
// lifecycle rule (a quota, an order) is one more `wait` reason answered by the attempt, not a change here: ordered
// delivery (`fifo_turn`) is one, woken by the release signal of the delivery before it.
import type { Actor, DeliveryStatus } from '../src/domain/delivery-vocabulary.js';
import { waitBeforeNextMs } from '../src/domain/retry-schedule.js';
import type {
  AttemptResult,
  AttemptStep,
  DeliveryState,
  DeliveryWorkflowInput,
  RerunStart,
  RetryAnswer,
  RetryRequest,
  StepInput,
} from './types.js';

/** What the run does after a step or a wake: attempt at once, wait (null: no timer), or end. */
export type Next =
  { readonly kind: 'attempt' } | { readonly kind: 'wait'; readonly ms: number | null } | { readonly kind: 'end' };

/** The status an operator filters on in the Temporal UI (HeraldDeliveryStatus). */
export type ShownStatus = DeliveryStatus | 'held' | 'waiting';

const isFinal = (status: DeliveryStatus): boolean => status !== 'pending';

export function createDeliveryMachine(input: DeliveryWorkflowInput) {
  let { firstAttemptNumber, followSchedule } = input;
  let actor: Actor = input.actor;
  let state: DeliveryState = {
    status: 'pending',
    attemptCount: firstAttemptNumber - 1,
    nextAttemptAt: null,
    lastOutcome: null,
  };
  const results = new Map<number, AttemptResult>();
  let next = firstAttemptNumber;
  /** The attempt in flight (it serves every manual retry that reaches it), and the highest one promised to one. */
  let attempting: number | null = null;
  let promised = 0;
  /** A run started by a manual retry knows its numbers once it has read them from the records. */
  let numbered = input.actor !== 'manual';
  let retryRequested = false;
  let cancelRequested = false;
  let released = false;
  /** After any wait the hand-off is stale (the delivery has a record, the subscription may have changed). */
  let waited = false;
  /** The next attempt follows a wait for its turn that ended by its timer, not by a release (a recheck). */
  let recheck = false;
  let ended = false;

  const endWith = (): Next => ({ kind: 'end' });

  /** After a step that sent a request or ended the delivery without one (the legacy loop's rules, unchanged). */
  function afterResult(result: AttemptResult, nowMs: number): Next {
    const n = result.attemptNumber;
    next = n + 1;
    results.set(n, result);
    // A call that made no attempt (the delivery was cancelled) does not count as one.
    const attemptCount = result.attemptId === null ? n - 1 : n;
    state = { status: result.deliveryStatus, attemptCount, nextAttemptAt: null, lastOutcome: result.outcome };
    // A retry asked for during the last attempt is honoured, and so is one promised the next attempt.
    const owed = promised >= next;
    const retryAfterLast = (result.deliveryStatus === 'failed' && retryRequested) || owed;
    if (isFinal(result.deliveryStatus) && !retryAfterLast) return endWith();
    if (cancelRequested) return endWith();
    if (isFinal(result.deliveryStatus)) followSchedule = false; // one more attempt, no new schedule
    if (retryRequested) {
      actor = 'manual';
      return { kind: 'attempt' };
    }
    const retryInSeconds = result.retryInSeconds ?? null;
    if (retryInSeconds === null) return endWith();
    const ms = waitBeforeNextMs(retryInSeconds, result.nextAttemptInMs);
    state = { ...state, nextAttemptAt: new Date(nowMs + ms).toISOString() };
    return { kind: 'wait', ms };
  }

  return {
    /** A run started by a manual retry: its numbers as prepareRerun read them from the records. */
    numberFrom(start: RerunStart | null): void {
      if (start) {
        ({ firstAttemptNumber, followSchedule } = start);
        next = firstAttemptNumber;
        state = { ...state, attemptCount: firstAttemptNumber - 1 };
      }
      numbered = true;
    },
    isNumbered: (): boolean => numbered,

    /** retryNow signal: attempt now (cuts a wait short; during an attempt, one more should it fail). */
    requestRetry(): void {
      retryRequested = true;
    },
    /** cancel signal: the API marked the delivery cancelled; a waiting run ends at once. */
    requestCancel(): void {
      cancelRequested = true;
    },
    /** release signal: a held run makes its attempt now. */
    release(): void {
      released = true;
    },
    /**
     * retry update: the attempt that serves it — the one in flight, unless the request came after its record (the
     * integrator saw it end); else the next, made at once (after the one in flight).
     */
    promiseRetry(request?: RetryRequest): RetryAnswer {
      const recorded = request?.recordedAttempts ?? 0;
      if (attempting !== null && attempting > recorded) return { attemptNumber: attempting };
      const serving = attempting === null ? next : attempting + 1;
      retryRequested = true;
      promised = Math.max(promised, serving);
      return { attemptNumber: serving };
    },
    resultOf: (attemptNumber: number): AttemptResult | undefined => results.get(attemptNumber),
    isEnded: (): boolean => ended,
    state: (): DeliveryState => state,
    shown(): ShownStatus {
      if (state.waitReason === undefined) return state.status;
      return state.waitReason === 'subscription_paused' ? 'held' : 'waiting';
    },

    /** The input of the next attempt. */
    begin(handOff: DeliveryWorkflowInput['handOff']): StepInput {
      retryRequested = false; // from here on, a retryNow asks for one more attempt should this one fail
      released = false; // a release sent while this attempt runs lets it go at once should it be held
      attempting = next;
      const first = next === firstAttemptNumber && !waited;
      const ordered = input.handOff;
      return {
        deliveryId: input.deliveryId,
        attemptNumber: next,
        actor,
        followSchedule,
        ...(handOff && first ? { handOff } : {}),
        ...(ordered?.fifoSeq === undefined
          ? {}
          : {
              fifo: { subscriptionId: ordered.subscriptionId, seq: ordered.fifoSeq, ...(recheck ? { recheck } : {}) },
            }),
      };
    },

    /** What the attempt came to, and what the run does next. */
    afterStep(step: AttemptStep, nowMs: number): Next {
      attempting = null;
      if (step.step !== 'wait') return afterResult(step.result, nowMs);
      // No request, no attempt: the number and the schedule stay as they were.
      waited = true;
      const nextAttemptAt = step.waitMs === null ? null : new Date(nowMs + step.waitMs).toISOString();
      const held = step.reason === 'subscription_paused' ? { held: true } : {};
      state = { ...state, nextAttemptAt, ...held, waitReason: step.reason };
      return { kind: 'wait', ms: step.waitMs };
    },

    /** Whether a wait ends before its timer: a retry or a cancel, or (held, or waiting for its turn) the release. */
    woken: (): boolean =>
      retryRequested ||
      cancelRequested ||
      (released && (state.waitReason === 'subscription_paused' || state.waitReason === 'fifo_turn')),

    /** The wait is over (woken, or its timer fired). */
    wake(): Next {
      const { waitReason, ...rest } = state;
      recheck = waitReason === 'fifo_turn' && !released && !retryRequested;
      if (waitReason !== undefined) state = waitReason === 'subscription_paused' ? { ...rest, held: false } : rest;
      if (cancelRequested) return endWith();
      actor = retryRequested ? 'manual' : 'system';
      return { kind: 'attempt' };
    },

    /** The run ends: a cancel that ended a waiting run leaves the run's own view to end. */
    end(): { status: DeliveryStatus; attempts: number } {
      if (cancelRequested && !isFinal(state.status)) state = { ...state, status: 'cancelled', nextAttemptAt: null };
      ended = true;
      return { status: state.status, attempts: state.attemptCount - firstAttemptNumber + 1 };
    },
  };
}

export type DeliveryMachine = ReturnType<typeof createDeliveryMachine>;
