import { ApplicationFailure, Context } from '@temporalio/activity';
import { buildWebhookHeaders, signWebhook } from '../src/crypto/webhook-signature.js';
import { decideAttempt, type AttemptVerdict } from '../src/domain/attempt-rule.js';
import type { WebhookHttpClient } from '../src/net/http-client.js';
import { attemptsToMove } from '../src/store/attempts-repo.js';
import { attemptIdOf } from '../src/store/derived-ids.js';
import type { AttemptDoc, DeliveryDoc, SubscriptionDoc } from '../src/store/documents.js';
import type { Store } from '../src/store/index.js';
import { addActivityLogFields } from '../src/telemetry/activity-log-fields.js';
import type { AttemptObserver, DeliveryLogContext } from '../src/telemetry/attempt-observer.js';
import type { DeliveryStatus } from '../src/domain/delivery-vocabulary.js';
import { DELIVERY_NOT_FOUND } from '../workflows/messages.js';
import type { AttemptInput, AttemptResult, HandOff } from '../workflows/types.js';
import { createEventWait } from './event-wait.js';
import { isForeignEvent, refuseForeignEvent } from './foreign-event.js';
import { currentHeartbeat, recordPersistently, withHeartbeats } from './keep-alive.js';
import { createRepeatPostGuard } from './repeat-posts.js';
import { SigningKeyUnavailable, type createSigningKeyCache } from './signing-keys.js';
import type { SubscriptionCache } from './subscription-cache.js';
import type { EndpointHealth } from './endpoint-health.js';
import type { DeliveryPort } from './delivery-port.js';

export interface AttemptDeps {
  readonly store: Store;
  readonly keys: ReturnType<typeof createSigningKeyCache>;
  readonly subscriptions: SubscriptionCache;
  readonly http: WebhookHttpClient;
  readonly now?: () => Date;
  /** Temporal's attempt number of this activity call (1 = first); tests calling it outside a worker give their own. */
  readonly activityAttempt?: () => number;
  /** Error-level log of faults that need an operator (default: the activity context's logger). */
  readonly logError?: LogError;
  /** Metrics and log lines about each attempt (src/telemetry/attempt-observer.ts); none when absent. */
  readonly observer?: AttemptObserver;
  /** Counts failures per endpoint and pauses one that keeps failing (activities/endpoint-health.ts); none when absent. */
  readonly health?: EndpointHealth;
  /** Pauses a subscription whose endpoint answered 410 Gone; none when absent. */
  readonly autoPause?: DeliveryPort['autoPause'];
  /** The longest wait a Retry-After may ask for (HERALD_RETRY_AFTER_MAX_SECONDS; default: the rule's). */
  readonly retryAfterMaxSeconds?: number;
  /** How long a record is retried in place (default ATTEMPT_STORE_BUDGET_MS); tests shorten it. */
  readonly recordBudgetMs?: number;
  /** POSTs of an unrecorded attempt a retried call may repeat (default REPEAT_POSTS_MAX). */
  readonly repeatPostsMax?: number;
}

export type LogError = (message: string, fields: Record<string, unknown>) => void;

const activityLogError: LogError = (message, fields) => Context.current().log.error(message, fields);

/** A first attempt made this soon after the hand-off signs with the subscription as the event was matched against. */
const MATCHED_SUBSCRIPTION_MAX_AGE_MS = 10_000;
const temporalAttempt = (): number => Context.current().info.attempt;

/** Why a delivery is not attempted; null when it should be. Explicit requests (manual, test) reach disabled ones. */
function cancelReason(delivery: DeliveryDoc, subscription: SubscriptionDoc | null, input: AttemptInput) {
  if (delivery.status === 'cancelled') return delivery.terminalReason ?? 'subscription_deleted';
  if (!subscription || subscription.deletedAt) return 'subscription_deleted';
  if (subscription.status === 'disabled' && input.actor === 'system') return 'subscription_disabled';
  return null;
}

/** Whether failures of this run follow the schedule; an input from before the attempt rule says it its own way. */
const followsSchedule = (input: AttemptInput): boolean =>
  'followSchedule' in input ? input.followSchedule : input.retryInSeconds !== null;

/** A new delivery as its hand-off describes it: its first attempt's record creates it. */
function handedOff(deliveryId: string, h: HandOff): DeliveryDoc {
  const createdAt = new Date(h.createdAt);
  const { eventId, subscriptionId, integratorId, eventType } = h;
  return {
    ...{ _id: deliveryId, integratorId, subscriptionId, eventId, eventType, status: 'pending', attemptCount: 0 },
    ...{ createdAt, updatedAt: createdAt, nextAttemptAt: createdAt, terminalReason: null, lastResponseSummary: null },
  };
}

const logContext = (delivery: DeliveryDoc, attemptNumber: number): DeliveryLogContext => ({
  deliveryId: delivery._id,
  eventId: delivery.eventId,
  subscriptionId: delivery.subscriptionId,
  integratorId: delivery.integratorId,
  attemptNumber,
});

/** The reason an ending is counted under: the rule's, or cancelled_during_attempt when a cancel won the race. */
const endingReason = (written: DeliveryStatus, decided: DeliveryStatus, reason: string | null): string | null =>
  written === decided ? reason : written === 'cancelled' ? 'cancelled_during_attempt' : null;

/** The answer of a call that sent nothing and recorded no attempt. */
const noRequest = (input: AttemptInput, outcome: 'cancelled' | 'signing_key_unavailable' | 'held') =>
  ({ attemptId: null, attemptNumber: input.attemptNumber, outcome, statusCode: null, retryInSeconds: null }) as const;

const cancelled = (input: AttemptInput): AttemptResult => ({
  ...noRequest(input, 'cancelled'),
  deliveryStatus: 'cancelled',
});

/**
 * One attempt: sign the stored body, POST it through the pinned client, record the attempt and its effect on the
 * delivery (one write). Receiver problems are outcomes; only our own faults throw (Temporal retries the activity).
 * Idempotent: a retried activity whose attempt is already recorded returns it without sending again. The first
 * attempt of a handed-off delivery reads only its event (and its subscription when this worker has not seen that
 * version yet): see docs/deliveries.md, "Database round trips".
 */
export function createAttemptDelivery(deps: AttemptDeps) {
  const { store, keys, http, subscriptions, now = () => new Date() } = deps;
  const { activityAttempt = temporalAttempt, logError = activityLogError, observer } = deps;
  const { health, autoPause, retryAfterMaxSeconds, recordBudgetMs } = deps;
  const { deliveries } = store;
  const eventOf = createEventWait({ store, now, activityAttempt, ...(observer ? { observer } : {}) });
  const guardRepeat = createRepeatPostGuard({ store, now, logError, observer, max: deps.repeatPostsMax });

  return async function attemptDelivery(input: AttemptInput): Promise<AttemptResult> {
    return await withHeartbeats(currentHeartbeat(), () => attempt(input));
  };

  async function attempt(input: AttemptInput): Promise<AttemptResult> {
    const retried = activityAttempt() > 1;
    const { handOff } = input;
    // Only a retried activity can find its attempt recorded already (attempt numbers are never reused), or a
    // handed-off delivery already stored. Its effect on the delivery may not have been written: write it again.
    const stored = handOff && !retried ? null : await deliveries.findById(input.deliveryId);
    const delivery = stored ?? (handOff ? handedOff(input.deliveryId, handOff) : null);
    if (!delivery) throw ApplicationFailure.nonRetryable(`delivery ${input.deliveryId} not found`, DELIVERY_NOT_FOUND);
    const ctx = logContext(delivery, input.attemptNumber);
    addActivityLogFields({ ...ctx }); // the Temporal SDK's lines about this call carry the five ids too
    const recorded = retried ? delivery.attempts?.[String(input.attemptNumber)] : undefined;
    if (recorded) return untilDue(await settle(delivery, recorded, input, ctx));

    const fresh =
      handOff && !retried && now().getTime() - delivery.createdAt.getTime() < MATCHED_SUBSCRIPTION_MAX_AGE_MS;
    const [event, subscription] = await Promise.all([
      eventOf(ctx, handOff),
      fresh
        ? subscriptions.atVersion(handOff.subscriptionId, handOff.subscriptionVersion)
        : subscriptions.current(delivery.subscriptionId),
    ]);
    // An event id of another integrator: nothing of that event is sent (activities/foreign-event.ts).
    if (isForeignEvent(event, delivery, subscription)) {
      const refusal = { deliveries, now, logError, ...(observer ? { observer } : {}) };
      const deliveryStatus = await refuseForeignEvent(refusal, delivery, event, stored !== null, ctx);
      return { ...noRequest(input, 'cancelled'), deliveryStatus };
    }
    // A re-submitted event matched against a subscription made after the event was first stored: no delivery.
    if (subscription && subscription.createdAt > event.createdAt) return cancelled(input);
    const reason = cancelReason(delivery, subscription, input);
    if (reason !== null || !subscription) {
      await deliveries.cancel(delivery, reason ?? 'subscription_deleted', now());
      observer?.finished(ctx, 'cancelled', reason ?? 'subscription_deleted');
      return cancelled(input);
    }
    // A paused subscription holds its scheduled attempts (manual retries and test sends still go): no request, no
    // attempt number used; the run waits for the release signal of a resume (docs/subscriptions.md).
    if (subscription.status === 'paused' && input.actor === 'system' && input.holdWhenPaused === true) {
      await deliveries.hold(delivery, now());
      return { ...noRequest(input, 'held'), deliveryStatus: 'pending' };
    }
    const keyId = subscription.activeKeyId;
    let signingKey;
    try {
      signingKey = await keys.get(keyId, () => store.subscriptions.findKey(keyId));
    } catch (err) {
      if (!(err instanceof SigningKeyUnavailable)) throw err; // the database, say: Temporal retries the activity
      // Nothing was sent. Retrying cannot open the key: end the delivery where the integrator and operators see it.
      logError('signing key unavailable: delivery failed without a request', { ...ctx, keyId, reason: err.message });
      const deliveryStatus = await deliveries.fail(delivery, 'signing_key_unavailable', now());
      observer?.finished(ctx, deliveryStatus, endingReason(deliveryStatus, 'failed', 'signing_key_unavailable'));
      return { ...noRequest(input, 'signing_key_unavailable'), deliveryStatus };
    }
    // A retried call may follow one that POSTed and could not record it: it counts its POST first, within a bound.
    const givenUp = retried ? await guardRepeat(delivery, input, ctx) : null;
    if (givenUp) return givenUp;

    const signedAt = now();
    const timestamp = Math.floor(signedAt.getTime() / 1000);
    const signature = signWebhook(signingKey, delivery._id, timestamp, event.body);
    const headers = buildWebhookHeaders({ deliveryId: delivery._id, eventId: event._id, keyId, timestamp, signature });
    // On the schedule, a first attempt is due at ingest and a retry at its nextAttemptAt; others have no due time.
    const first = delivery.attemptCount === 0;
    observer?.started(ctx, input.actor !== 'system' ? null : first ? event.createdAt : delivery.nextAttemptAt, first);
    const post = await http.post(subscription.url, headers, event.body);
    observer?.made(ctx, { outcome: post.outcome, statusCode: post.statusCode, latencyMs: post.latencyMs });

    const sent: AttemptDoc = {
      _id: attemptIdOf(delivery._id, input.attemptNumber),
      integratorId: delivery.integratorId,
      deliveryId: delivery._id,
      attemptNumber: input.attemptNumber,
      outcome: post.outcome,
      statusCode: post.statusCode,
      error: post.error,
      latencyMs: post.latencyMs,
      responseSummary: post.responseSummary,
      signedAt,
      signedTimestamp: String(timestamp),
      signingKeyId: keyId,
      actor: input.actor,
      address: post.address,
      createdAt: now(),
    };
    // Nothing else runs between the answer and its record: a crash after the POST re-sends only if it comes first.
    const settled = await settle(delivery, sent, input, ctx);
    await receiverSignals(subscription, sent, settled.verdict.pause === 'endpoint_gone', ctx);
    return untilDue(settled);
  }

  /** The schedule counts from the answer: the result says what is left of the wait as the activity returns. */
  function untilDue({ result, dueAt }: { result: AttemptResult; dueAt: Date | null }): AttemptResult {
    return { ...result, nextAttemptInMs: dueAt ? dueAt.getTime() - now().getTime() : null };
  }

  /** After the record: 410 Gone pauses the subscription; every answer counts for the endpoint's health. */
  async function receiverSignals(
    subscription: SubscriptionDoc,
    sent: AttemptDoc,
    gone: boolean,
    ctx: DeliveryLogContext,
  ) {
    try {
      if (gone && autoPause) await autoPause(subscription, 'endpoint_gone', sent.createdAt);
      else await health?.observe(subscription, sent.outcome, sent.createdAt);
    } catch (err) {
      // The attempt is recorded; a pause missed now is made by the next failed attempt.
      logError('endpoint health or pause not recorded', {
        ...ctx,
        reason: err instanceof Error ? err.message : String(err),
      });
    }
  }

  /**
   * Records an attempt with its effect on the delivery, as the attempt rule decides it (one write by `_id`, which
   * creates a handed-off delivery), and answers the workflow the status written and the wait before the next attempt.
   */
  async function settle(
    delivery: DeliveryDoc,
    attempt: AttemptDoc,
    input: AttemptInput,
    ctx: DeliveryLogContext,
  ): Promise<{ result: AttemptResult; verdict: AttemptVerdict; dueAt: Date | null }> {
    const verdict = decideAttempt({
      outcome: attempt.outcome,
      statusCode: attempt.statusCode,
      headers: attempt.responseSummary?.headers ?? {},
      attemptNumber: attempt.attemptNumber,
      followSchedule: followsSchedule(input),
      answeredAtMs: attempt.createdAt.getTime(),
      ...(retryAfterMaxSeconds === undefined ? {} : { retryAfterMaxSeconds }),
    });
    const { retryInSeconds } = verdict;
    // The wait used (and what the receiver asked) is recorded on the attempt: the attempts view shows it.
    const withWait = { ...attempt, retryAfterSeconds: verdict.retryAfterSeconds ?? null, retryInSeconds };
    const effect = {
      status: verdict.status,
      attemptCount: attempt.attemptNumber,
      nextAttemptAt: retryInSeconds === null ? null : new Date(attempt.createdAt.getTime() + retryInSeconds * 1000),
      terminalReason: verdict.terminalReason,
      lastResponseSummary: attempt.responseSummary,
      updatedAt: now(),
      held: false,
    };
    // Past the latest few, the oldest attempts move to their own collection (copied before they leave the document).
    const moved = attemptsToMove(delivery, attempt.attemptNumber);
    const written = await recordPersistently(async () => {
      await store.attempts.move(moved);
      return await deliveries.recordAttempt(
        delivery,
        withWait,
        effect,
        moved.map((a) => a.attemptNumber),
      );
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
    return { result, verdict, dueAt: written === 'pending' ? effect.nextAttemptAt : null };
  }
}
