// An attempt's record: the attempt rule's verdict on what the receiver answered, written with its effect on the
// delivery in one write by `_id` (which creates a handed-off delivery), then the receiver's signals (410 pauses the
// subscription; every answer counts for the endpoint's health and in the subscription's stats).
import { decideAttempt, type AttemptVerdict } from '../src/domain/attempt-rule.js';
import type { DeliveryStatus } from '../src/domain/delivery-vocabulary.js';
import { attemptsToMove } from '../src/store/attempts-repo.js';
import type { AttemptDoc, DeliveryDoc, SubscriptionDoc } from '../src/store/documents.js';
import type { Store } from '../src/store/index.js';
import type { AttemptObserver, DeliveryLogContext } from '../src/telemetry/attempt-observer.js';
import type { AttemptResult } from '../workflows/types.js';
import type { DeliveryPort } from './delivery-port.js';
import type { AttemptStats } from './attempt-stats.js';
import type { EndpointHealth } from './endpoint-health.js';
import { recordPersistently } from './keep-alive.js';

export type LogError = (message: string, fields: Record<string, unknown>) => void;

export interface RecordDeps {
  readonly store: Store;
  readonly now: () => Date;
  readonly logError: LogError;
  readonly observer?: AttemptObserver | undefined;
  readonly health?: EndpointHealth | undefined;
  readonly stats?: AttemptStats | undefined;
  readonly autoPause?: DeliveryPort['autoPause'] | undefined;
  readonly retryAfterMaxSeconds?: number | undefined;
  readonly recordBudgetMs?: number | undefined;
}

export interface Settled {
  readonly result: AttemptResult;
  readonly verdict: AttemptVerdict;
  readonly dueAt: Date | null;
}

/** The reason an ending is counted under: the rule's, or cancelled_during_attempt when a cancel won the race. */
const endingReason = (written: DeliveryStatus, decided: DeliveryStatus, reason: string | null): string | null =>
  written === decided ? reason : written === 'cancelled' ? 'cancelled_during_attempt' : null;

export function createAttemptRecorder(deps: RecordDeps) {
  const { store, now, logError, observer, health, stats, autoPause, retryAfterMaxSeconds, recordBudgetMs } = deps;

  return {
    endingReason,

    /** The schedule counts from the answer: the result says what is left of the wait as the activity returns. */
    untilDue({ result, dueAt }: Settled): AttemptResult {
      return { ...result, nextAttemptInMs: dueAt ? dueAt.getTime() - now().getTime() : null };
    },

    /**
     * After the record: 410 Gone pauses the subscription; every answer counts for the endpoint's health and in the
     * subscription's hourly stats.
     */
    async receiverSignals(subscription: SubscriptionDoc, sent: AttemptDoc, gone: boolean, ctx: DeliveryLogContext) {
      stats?.add(subscription._id, sent);
      try {
        if (gone && autoPause) await autoPause(subscription, 'endpoint_gone', sent.createdAt);
        else await health?.observe(subscription, sent.outcome, sent.createdAt);
      } catch (err) {
        // The attempt is recorded; a pause missed now is made by the next failed attempt.
        const reason = err instanceof Error ? err.message : String(err);
        logError('endpoint health or pause not recorded', { ...ctx, reason });
      }
    },

    /**
     * Records an attempt with its effect on the delivery, as the attempt rule decides it, and answers the workflow
     * the status written and the wait before the next attempt.
     */
    async settle(
      delivery: DeliveryDoc,
      attempt: AttemptDoc,
      followSchedule: boolean,
      ctx: DeliveryLogContext,
    ): Promise<Settled> {
      const verdict = decideAttempt({
        outcome: attempt.outcome,
        statusCode: attempt.statusCode,
        headers: attempt.responseSummary?.headers ?? {},
        attemptNumber: attempt.attemptNumber,
        followSchedule,
        answeredAtMs: attempt.createdAt.getTime(),
        ...(retryAfterMaxSeconds === undefined ? {} : { retryAfterMaxSeconds }),
      });
      const { retryInSeconds } = verdict;
      // The wait used (and what the receiver asked) is recorded on the attempt: the attempts view shows it.
      const withWait = { ...attempt, retryAfterSeconds: verdict.retryAfterSeconds ?? null, retryInSeconds };
      const nextAttemptAt =
        retryInSeconds === null ? null : new Date(attempt.createdAt.getTime() + retryInSeconds * 1000);
      const effect = {
        status: verdict.status,
        attemptCount: attempt.attemptNumber,
        nextAttemptAt,
        terminalReason: verdict.terminalReason,
        lastResponseSummary: attempt.responseSummary,
        updatedAt: now(),
        held: false,
        waitReason: null,
      };
      // Past the latest few, the oldest attempts move to their own collection (copied before they leave the document).
      const moved = attemptsToMove(delivery, attempt.attemptNumber);
      const written = await recordPersistently(async () => {
        await store.attempts.move(moved);
        const movedNumbers = moved.map((a) => a.attemptNumber);
        return await store.deliveries.recordAttempt(delivery, withWait, effect, movedNumbers);
      }, recordBudgetMs);
      if (written !== 'pending')
        observer?.finished(ctx, written, endingReason(written, verdict.status, verdict.terminalReason));
      const result = {
        attemptId: attempt._id,
        attemptNumber: attempt.attemptNumber,
        outcome: attempt.outcome,
        statusCode: attempt.statusCode,
        deliveryStatus: written,
        retryInSeconds: written === 'pending' ? retryInSeconds : null,
      };
      return { result, verdict, dueAt: written === 'pending' ? nextAttemptAt : null };
    },
  };
}
