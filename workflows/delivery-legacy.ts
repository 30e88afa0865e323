// The delivery run of workflows recorded before patch `attempt-steps` (docs/upgrade-workflow.md): attempt → wait
// (interruptible) → attempt … → succeeded | failed | cancelled, over the `attemptDelivery` activity. Never changed
// again: a change here would break the replay of runs already in flight; new behaviour goes to delivery-run.ts.
import { ApplicationFailure, allHandlersFinished, condition, patched, setHandler } from '@temporalio/workflow';
import type { Actor, DeliveryStatus } from '../src/domain/delivery-vocabulary.js';
import { retryDelayAfter, waitBeforeNextMs } from '../src/domain/retry-schedule.js';
import { attemptActivities, recordSearchAttributes, validateAttemptNumber } from './delivery-activities.js';
import {
  attemptResultUpdate,
  cancelSignal,
  deliveryStateQuery,
  releaseSignal,
  retryNowSignal,
  retryUpdate,
  RUN_CLOSING,
} from './messages.js';
import { patches } from './patches.js';
import type {
  AttemptResult,
  DeliveryState,
  DeliveryWorkflowInput,
  DeliveryWorkflowResult,
  RetryAnswer,
  RetryRequest,
} from './types.js';

const { attemptDelivery, prepareRerun } = attemptActivities;

/** The activity decides the delivery's status; any status but pending ends the run. */
function isFinal(status: DeliveryStatus): boolean {
  return status !== 'pending';
}

/**
 * The delivery run as released before patch `attempt-steps`, kept byte for byte in behaviour: runs started by that
 * code (their histories lack the marker) finish on this loop. New runs use workflows/delivery-run.ts.
 */
export async function legacyDeliveryRun(input: DeliveryWorkflowInput): Promise<DeliveryWorkflowResult> {
  const { deliveryId } = input;
  let { firstAttemptNumber, followSchedule } = input;
  // A new run records one marker; replaying an older history, `current` is false and each change answers as its own
  // marker (present or not) says — the same calls, in the same order, as the code that recorded it.
  const current = patched(patches.oneMarker);
  const ruled = current || patched(patches.attemptRule);
  const cancellable = current || patched(patches.cancelSignal);
  const holding = current || patched(patches.pauseHold);
  const results = new Map<number, AttemptResult>();
  let state: DeliveryState = {
    status: 'pending',
    attemptCount: firstAttemptNumber - 1,
    nextAttemptAt: null,
    lastOutcome: null,
  };
  let retryRequested = false;
  let cancelRequested = false;
  let released = false;
  /** Once held, the hand-off's subscription version is stale: the attempt reads the subscription as it is now. */
  let wasHeld = false;
  let ended = false;
  // Manual retry by update: the attempt in progress (it serves every request that reaches it), the next one, and
  // the highest one promised to a request; a run started by a retry knows its numbers once it has read them.
  let attempting: number | null = null;
  let next = firstAttemptNumber;
  let promised = 0;
  let numbered = input.actor !== 'manual';

  // Set before the first await, so an update sent with the start finds its handler.
  setHandler(retryNowSignal, () => {
    retryRequested = true;
  });
  setHandler(cancelSignal, () => {
    if (cancellable) cancelRequested = true;
    else retryRequested = true; // as the run's own code version did on cancellation
  });
  setHandler(releaseSignal, () => {
    released = true;
  });
  setHandler(deliveryStateQuery, () => state);
  setHandler(
    attemptResultUpdate,
    async (attemptNumber) => {
      await condition(() => results.has(attemptNumber) || ended);
      const result = results.get(attemptNumber);
      if (result) return result;
      throw ApplicationFailure.create({
        type: 'AttemptNotMade',
        message: `attempt ${attemptNumber} was not made: the delivery ended as ${state.status}`,
        nonRetryable: true,
      });
    },
    { validator: (attemptNumber) => validateAttemptNumber(attemptNumber, firstAttemptNumber) },
  );
  setHandler<RetryAnswer, [RetryRequest], typeof retryUpdate>(
    retryUpdate,
    async () => {
      if (!numbered) await condition(() => numbered);
      if (attempting !== null) return { attemptNumber: attempting };
      retryRequested = true;
      promised = next;
      return { attemptNumber: next };
    },
    {
      validator: () => {
        if (ended) throw ApplicationFailure.create({ type: RUN_CLOSING, message: 'this run has ended' });
      },
    },
  );

  // A run started by a manual retry: the previous run has closed, so the records are final; numbering from them
  // (not from what the API read before starting) never reuses a number when retries race.
  if (input.actor === 'manual' && (current || patched(patches.manualRetryUpdate))) {
    ({ firstAttemptNumber, followSchedule } = await prepareRerun(deliveryId));
    next = firstAttemptNumber;
    state = { ...state, attemptCount: firstAttemptNumber - 1 };
  }
  numbered = true;

  let actor: Actor = input.actor;
  for (;;) {
    const attemptNumber = next;
    // A retryNow that arrives from here on asks for one more attempt should this one fail.
    retryRequested = false;
    released = false; // a release sent while this attempt runs lets it go at once should it be held
    attempting = attemptNumber;
    const scheduled = followSchedule ? retryDelayAfter(attemptNumber) : null;
    const result = await attemptDelivery(
      ruled
        ? {
            deliveryId,
            attemptNumber,
            actor,
            followSchedule,
            ...(input.handOff && attemptNumber === firstAttemptNumber && !wasHeld ? { handOff: input.handOff } : {}),
            ...(holding ? { holdWhenPaused: true } : {}),
          }
        : { deliveryId, attemptNumber, actor, retryInSeconds: scheduled },
    );
    const retryInSeconds = ruled ? (result.retryInSeconds ?? null) : scheduled;
    attempting = null;
    if (result.outcome === 'held') {
      // No request, no attempt: the number and the schedule stay as they were until the subscription is resumed.
      wasHeld = true;
      state = { ...state, held: true, nextAttemptAt: null };
      recordSearchAttributes('held', state.attemptCount);
      await condition(() => released || retryRequested || cancelRequested);
      state = { ...state, held: false };
      if (cancelRequested) break;
      recordSearchAttributes('pending', state.attemptCount);
      actor = retryRequested ? 'manual' : 'system';
      continue;
    }
    next = attemptNumber + 1;
    results.set(attemptNumber, result);
    // A call that made no attempt (the delivery was cancelled) does not count as one.
    const attemptCount = result.attemptId === null ? attemptNumber - 1 : attemptNumber;
    state = { status: result.deliveryStatus, attemptCount, nextAttemptAt: null, lastOutcome: result.outcome };
    recordSearchAttributes(result.deliveryStatus, attemptCount);

    // A retry asked for during the last attempt is honoured: that attempt's `failed` is not the end then. Nor is
    // any final status when a retry update has been promised the next attempt (answered as the attempt ended).
    const owed = promised >= next;
    const retryAfterLast = (result.deliveryStatus === 'failed' && retryRequested) || owed;
    if (isFinal(result.deliveryStatus) && !retryAfterLast) break;
    if (cancelRequested) break;
    if (isFinal(result.deliveryStatus)) followSchedule = false; // one more attempt, no new schedule
    if (retryRequested) {
      actor = 'manual';
    } else {
      if (retryInSeconds === null) break;
      // Counted from the answer: only the timer's duration changes (not checked on replay: no patch, same commands).
      const waitMs = waitBeforeNextMs(retryInSeconds, result.nextAttemptInMs);
      state = { ...state, nextAttemptAt: new Date(Date.now() + waitMs).toISOString() };
      const cutShort = await condition(() => retryRequested || cancelRequested, waitMs);
      if (cancelRequested) break;
      actor = cutShort ? 'manual' : 'system';
    }
  }
  if (cancelRequested && !isFinal(state.status)) {
    // The API marked the delivery cancelled before it signalled: only the run's own view is left to end.
    state = { ...state, status: 'cancelled', nextAttemptAt: null };
    recordSearchAttributes('cancelled', state.attemptCount);
  }

  ended = true;
  // Let a waiting attemptResult update answer before the run closes.
  await condition(allHandlersFinished);
  return { status: state.status, attempts: state.attemptCount - firstAttemptNumber + 1 };
}
