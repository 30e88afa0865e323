// The delivery run of patch `attempt-steps`: the state machine of workflows/delivery-machine.ts driven by the
// `runAttempt` activity, timers and conditions. Every attempt answers sent, end or wait; a wait (paused subscription,
// breaker, the integrator's share of slots) holds no worker slot and uses no attempt number nor schedule step.
import { ApplicationFailure, allHandlersFinished, condition, setHandler } from '@temporalio/workflow';
import { attemptActivities, recordSearchAttributes, validateAttemptNumber } from './delivery-activities.js';
import { createDeliveryMachine, type ShownStatus } from './delivery-machine.js';
import {
  attemptResultUpdate,
  cancelSignal,
  deliveryStateQuery,
  releaseSignal,
  retryNowSignal,
  retryUpdate,
  RUN_CLOSING,
} from './messages.js';
import type { DeliveryWorkflowInput, DeliveryWorkflowResult, RetryAnswer, RetryRequest } from './types.js';

const { runAttempt, prepareRerun } = attemptActivities;

export async function deliveryRun(input: DeliveryWorkflowInput): Promise<DeliveryWorkflowResult> {
  const run = createDeliveryMachine(input);
  const { firstAttemptNumber } = input;

  // Set before the first await, so an update sent with the start finds its handler.
  setHandler(retryNowSignal, () => run.requestRetry());
  setHandler(cancelSignal, () => run.requestCancel());
  setHandler(releaseSignal, () => run.release());
  setHandler(deliveryStateQuery, () => run.state());
  setHandler(
    attemptResultUpdate,
    async (attemptNumber) => {
      await condition(() => run.resultOf(attemptNumber) !== undefined || run.isEnded());
      const result = run.resultOf(attemptNumber);
      if (result) return result;
      throw ApplicationFailure.create({
        type: 'AttemptNotMade',
        message: `attempt ${attemptNumber} was not made: the delivery ended as ${run.state().status}`,
        nonRetryable: true,
      });
    },
    { validator: (attemptNumber) => validateAttemptNumber(attemptNumber, firstAttemptNumber) },
  );
  setHandler<RetryAnswer, [RetryRequest], typeof retryUpdate>(
    retryUpdate,
    // `request` is absent from API instances older than it.
    async (request: RetryRequest | undefined) => {
      if (!run.isNumbered()) await condition(run.isNumbered);
      return run.promiseRetry(request);
    },
    {
      validator: () => {
        if (run.isEnded()) throw ApplicationFailure.create({ type: RUN_CLOSING, message: 'this run has ended' });
      },
    },
  );

  // A run started by a manual retry: the previous run has closed, so the records are final; numbering from them
  // never reuses a number when retries race.
  run.numberFrom(input.actor === 'manual' ? await prepareRerun(input.deliveryId) : null);

  // The Temporal UI's status changes only when it shows something new (one command per change, none per re-check).
  let shown: { status: ShownStatus; attempts: number } = { status: 'pending', attempts: run.state().attemptCount };
  const show = (): void => {
    const status = run.shown();
    const attempts = run.state().attemptCount;
    if (status === shown.status && attempts === shown.attempts) return;
    shown = { status, attempts };
    recordSearchAttributes(status, attempts);
  };

  for (;;) {
    const step = await runAttempt(run.begin(input.handOff));
    let next = run.afterStep(step, Date.now());
    show();
    if (next.kind === 'wait') {
      if (next.ms === null) await condition(run.woken);
      else await condition(run.woken, next.ms);
      next = run.wake();
    }
    if (next.kind === 'end') break;
  }
  const result = run.end();
  show();
  // Let a waiting attemptResult update answer before the run closes.
  await condition(allHandlersFinished);
  return result;
}
