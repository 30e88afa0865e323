import { ApplicationFailure, Context } from '@temporalio/activity';
import { buildWebhookHeaders, signWebhook } from '../src/crypto/webhook-signature.js';
import type { FifoTurns } from '../src/ordering/fifo-turns.js';
import { createAttemptGate, type AttemptGate } from '../src/net/attempt-gate.js';
import type { WebhookHttpClient } from '../src/net/http-client.js';
import { attemptIdOf } from '../src/store/derived-ids.js';
import type { AttemptDoc, DeliveryDoc, SubscriptionDoc } from '../src/store/documents.js';
import type { Store } from '../src/store/index.js';
import { addActivityLogFields } from '../src/telemetry/activity-log-fields.js';
import type { AttemptObserver, DeliveryLogContext } from '../src/telemetry/attempt-observer.js';
import { DELIVERY_NOT_FOUND } from '../workflows/messages.js';
import type { AttemptInput, AttemptResult, AttemptStep, HandOff, StepInput } from '../workflows/types.js';
import { createAttemptRecorder, type LogError } from './attempt-record.js';
import { createAttemptTurns } from './attempt-turns.js';
import { createAttemptWaits } from './attempt-waits.js';
import { createEventWait } from './event-wait.js';
import { isForeignEvent, refuseForeignEvent } from './foreign-event.js';
import { currentHeartbeat, withHeartbeats } from './keep-alive.js';
import { createRepeatPostGuard } from './repeat-posts.js';
import { SigningKeyUnavailable, type createSigningKeyCache } from './signing-keys.js';
import type { SubscriptionCache } from './subscription-cache.js';
import type { AttemptStats } from './attempt-stats.js';
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
  /** The hourly attempt stats (activities/attempt-stats.ts); none when absent. */
  readonly stats?: AttemptStats;
  /** Pauses a subscription whose endpoint answered 410 Gone; none when absent. */
  readonly autoPause?: DeliveryPort['autoPause'];
  /** The longest wait a Retry-After may ask for (HERALD_RETRY_AFTER_MAX_SECONDS; default: the rule's). */
  readonly retryAfterMaxSeconds?: number;
  /** How long a record is retried in place (default ATTEMPT_STORE_BUDGET_MS); tests shorten it. */
  readonly recordBudgetMs?: number;
  /** POSTs of an unrecorded attempt a retried call may repeat (default REPEAT_POSTS_MAX). */
  readonly repeatPostsMax?: number;
  /** The integrator's share of slots and the breakers (src/net/attempt-gate.ts); default: a breaker, no share. */
  readonly gate?: AttemptGate;
  /** Ordered subscriptions' turns (src/ordering/fifo-turns.ts); none when absent (every delivery goes at once). */
  readonly turns?: FifoTurns | null;
}

export type { LogError };

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
const followsSchedule = (input: AttemptInput | StepInput): boolean =>
  'followSchedule' in input ? input.followSchedule : input.retryInSeconds !== null;

/** A new delivery as its hand-off describes it: its first attempt's record creates it. */
function handedOff(deliveryId: string, h: HandOff): DeliveryDoc {
  const createdAt = new Date(h.createdAt);
  const { eventId, subscriptionId, integratorId, eventType, fifoSeq } = h;
  return {
    ...{ _id: deliveryId, integratorId, subscriptionId, eventId, eventType, status: 'pending', attemptCount: 0 },
    ...{ createdAt, updatedAt: createdAt, nextAttemptAt: createdAt, terminalReason: null, lastResponseSummary: null },
    ...(fifoSeq === undefined ? {} : { fifoSeq }),
  };
}

const logContext = (delivery: DeliveryDoc, attemptNumber: number): DeliveryLogContext => ({
  deliveryId: delivery._id,
  eventId: delivery.eventId,
  subscriptionId: delivery.subscriptionId,
  integratorId: delivery.integratorId,
  attemptNumber,
});

/** The answer of a call that sent nothing and recorded no attempt. */
const noRequest = (input: { attemptNumber: number }, outcome: 'cancelled' | 'signing_key_unavailable' | 'held') =>
  ({ attemptId: null, attemptNumber: input.attemptNumber, outcome, statusCode: null, retryInSeconds: null }) as const;

/** A step that sent a request (its attempt recorded), or ended the delivery without one. */
const stepOf = (result: AttemptResult): AttemptStep => ({ step: result.attemptId === null ? 'end' : 'sent', result });

const cancelled = (input: { attemptNumber: number }): AttemptStep =>
  stepOf({ ...noRequest(input, 'cancelled'), deliveryStatus: 'cancelled' });

/** The callback URL's origin, the breaker's key with the integrator; a URL that does not parse is its own key. */
function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return url;
  }
}

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
  const { gate = createAttemptGate({ slotsPerIntegrator: Infinity }) } = deps;
  const { deliveries } = store;
  const eventOf = createEventWait({ store, now, activityAttempt, ...(observer ? { observer } : {}) });
  const guardRepeat = createRepeatPostGuard({ store, now, logError, observer, max: deps.repeatPostsMax });
  const recorder = createAttemptRecorder({ ...deps, now, logError });
  const { settle, untilDue } = recorder;
  const waits = createAttemptWaits({ gate, store, now, observer });
  const turns = createAttemptTurns({ turns: deps.turns ?? null, store, now, autoPause: deps.autoPause });

  return {
    /** The attempt of runs with patch `attempt-steps`: sent, end, or wait (paused, breaker, integrator's share). */
    async runAttempt(input: StepInput): Promise<AttemptStep> {
      return await withHeartbeats(currentHeartbeat(), async () => {
        const step = await attempt(input, true);
        await turns.after(input, step);
        return step;
      });
    },
    /**
     * The attempt of runs recorded before that patch, answered as they expect (a hold is outcome `held`). No capacity
     * guard turns them away: they cannot wait without using a step of their schedule.
     */
    async attemptDelivery(input: AttemptInput): Promise<AttemptResult> {
      const step = await withHeartbeats(currentHeartbeat(), () => attempt(input, false));
      if (step.step !== 'wait') return step.result;
      return { ...noRequest(input, 'held'), deliveryStatus: 'pending' };
    },
  };

  async function attempt(input: AttemptInput | StepInput, steps: boolean): Promise<AttemptStep> {
    const retried = activityAttempt() > 1;
    const again = steps && !retried && !input.handOff ? await waits.again(input) : null;
    if (again) return again;
    waits.forget(input.deliveryId);
    const { handOff } = input;
    // Only a retried activity can find its attempt recorded already (attempt numbers are never reused), or a
    // handed-off delivery already stored. Its effect on the delivery may not have been written: write it again.
    const stored = handOff && !retried ? null : await deliveries.findById(input.deliveryId);
    const delivery = stored ?? (handOff ? handedOff(input.deliveryId, handOff) : null);
    if (!delivery) throw ApplicationFailure.nonRetryable(`delivery ${input.deliveryId} not found`, DELIVERY_NOT_FOUND);
    const ctx = logContext(delivery, input.attemptNumber);
    addActivityLogFields({ ...ctx }); // the Temporal SDK's lines about this call carry the five ids too
    const recorded = retried ? delivery.attempts?.[String(input.attemptNumber)] : undefined;
    if (recorded) return stepOf(untilDue(await settle(delivery, recorded, followsSchedule(input), ctx)));

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
      return stepOf({ ...noRequest(input, 'cancelled'), deliveryStatus });
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
    const holds = steps || ('holdWhenPaused' in input && input.holdWhenPaused === true);
    if (subscription.status === 'paused' && input.actor === 'system' && holds) {
      await deliveries.hold(delivery, now());
      return { step: 'wait', reason: 'subscription_paused', waitMs: null };
    }
    // An ordered delivery goes only at its turn; one close to it waits here, its reads done (attempt-turns.ts).
    const notYet = 'fifo' in input ? await turns.before(delivery, stored, input) : null;
    if (notYet) return notYet;
    const keyId = subscription.activeKeyId;
    let signingKey;
    try {
      signingKey = await keys.get(keyId, () => store.subscriptions.findKey(keyId));
    } catch (err) {
      if (!(err instanceof SigningKeyUnavailable)) throw err; // the database, say: Temporal retries the activity
      // Nothing was sent. Retrying cannot open the key: end the delivery where the integrator and operators see it.
      logError('signing key unavailable: delivery failed without a request', { ...ctx, keyId, reason: err.message });
      const deliveryStatus = await deliveries.fail(delivery, 'signing_key_unavailable', now());
      const reason = recorder.endingReason(deliveryStatus, 'failed', 'signing_key_unavailable');
      observer?.finished(ctx, deliveryStatus, reason);
      return stepOf({ ...noRequest(input, 'signing_key_unavailable'), deliveryStatus });
    }
    // A retried call may follow one that POSTed and could not record it: it counts its POST first, within a bound.
    const givenUp = retried ? await guardRepeat(delivery, input, ctx) : null;
    if (givenUp) return stepOf(givenUp);
    // The capacity guards: a scheduled attempt they turn away waits, with nothing sent and nothing recorded.
    const explicit = !steps || input.actor !== 'system';
    const integratorId = delivery.integratorId;
    const admitted = gate.admit({
      integratorId,
      origin: originOf(subscription.url),
      deliveryId: delivery._id,
      explicit,
    });
    if (admitted.kind === 'wait') return await waits.turnAway(delivery, admitted, input.attemptNumber);

    const signedAt = now();
    const timestamp = Math.floor(signedAt.getTime() / 1000);
    const signature = signWebhook(signingKey, delivery._id, timestamp, event.body);
    const headers = buildWebhookHeaders({ deliveryId: delivery._id, eventId: event._id, keyId, timestamp, signature });
    // On the schedule, a first attempt is due at ingest and a retry at its nextAttemptAt; others have no due time.
    const first = delivery.attemptCount === 0;
    observer?.started(ctx, input.actor !== 'system' ? null : first ? event.createdAt : delivery.nextAttemptAt, first);
    let post;
    try {
      post = await http.post(subscription.url, headers, event.body, { tenant: integratorId });
    } finally {
      admitted.done(post?.outcome === 'timeout');
    }
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
    const settled = await settle(delivery, sent, followsSchedule(input), ctx);
    await recorder.receiverSignals(subscription, sent, settled.verdict.pause === 'endpoint_gone', ctx);
    return stepOf(untilDue(settled));
  }
}
