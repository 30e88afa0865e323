import { randomUUID } from 'node:crypto';
import { ApplicationFailure, Context } from '@temporalio/activity';
import { buildWebhookHeaders, signWebhook } from '../src/crypto/webhook-signature.js';
import type { WebhookHttpClient } from '../src/net/http-client.js';
import type { AttemptDoc, DeliveryDoc, SubscriptionDoc } from '../src/store/documents.js';
import type { Store } from '../src/store/index.js';
import type { AttemptObserver, DeliveryLogContext } from '../src/telemetry/attempt-observer.js';
import type { AttemptInput, AttemptResult, DeliveryStatus } from '../workflows/types.js';
import type { createSigningKeyCache } from './signing-keys.js';

export interface AttemptDeps {
  readonly store: Store;
  readonly keys: ReturnType<typeof createSigningKeyCache>;
  readonly http: WebhookHttpClient;
  readonly now?: () => Date;
  /** Whether this call is a retry of the activity (Temporal's attempt > 1). */
  readonly retried?: () => boolean;
  readonly observer?: AttemptObserver;
}

const activityRetried = (): boolean => Context.current().info.attempt > 1;

/** Why a delivery is not attempted; null when it should be. Explicit requests (manual, test) reach disabled ones. */
function cancelReason(delivery: DeliveryDoc, subscription: SubscriptionDoc | null, input: AttemptInput) {
  if (delivery.status === 'cancelled') return delivery.terminalReason ?? 'cancelled';
  if (!subscription || subscription.deletedAt) return 'subscription_deleted';
  if (subscription.status === 'disabled' && input.actor === 'system') return 'subscription_disabled';
  return null;
}

const logContext = (delivery: DeliveryDoc, attemptNumber: number): DeliveryLogContext => ({
  deliveryId: delivery._id,
  eventId: delivery.eventId,
  subscriptionId: delivery.subscriptionId,
  integratorId: delivery.integratorId,
  attemptNumber,
});

/** The reason an ending is counted under; a cancellation written while the attempt ran: cancelled_during_attempt. */
const terminalReasonOf = (status: DeliveryStatus): string | null =>
  status === 'failed' ? 'retries_exhausted' : status === 'cancelled' ? 'cancelled_during_attempt' : null;

const resultOf = (attempt: AttemptDoc, deliveryStatus: DeliveryStatus): AttemptResult => ({
  attemptId: attempt._id,
  attemptNumber: attempt.attemptNumber,
  outcome: attempt.outcome,
  statusCode: attempt.statusCode,
  deliveryStatus,
});

/**
 * One attempt: sign the stored body, POST it through the pinned client, record the attempt and update the delivery.
 * Receiver problems are outcomes; only our own faults throw (Temporal retries the activity). Idempotent: a retried
 * activity whose attempt is already recorded returns it without sending again.
 */
export function createAttemptDelivery(deps: AttemptDeps) {
  const { store, keys, http, now = () => new Date(), retried = activityRetried, observer } = deps;
  const { deliveries } = store;

  return async function attemptDelivery(input: AttemptInput): Promise<AttemptResult> {
    const delivery = await deliveries.findById(input.deliveryId);
    if (!delivery) throw ApplicationFailure.nonRetryable(`delivery ${input.deliveryId} not found`, 'DeliveryNotFound');
    // Only a retried activity can find its attempt recorded already (attempt numbers are never reused). Its effect
    // on the delivery may not have been written (the retry may be for exactly that write): write it again.
    const recorded = retried() ? await deliveries.findAttempt(delivery._id, input.attemptNumber) : null;
    const ctx = logContext(delivery, input.attemptNumber);
    if (recorded) return await settle(recorded, input, ctx);

    const [event, subscription] = await Promise.all([
      store.events.findById(delivery.eventId),
      store.subscriptions.findById(delivery.subscriptionId),
    ]);
    if (!event) throw ApplicationFailure.nonRetryable(`event ${delivery.eventId} not found`, 'DeliveryNotFound');
    const reason = cancelReason(delivery, subscription, input);
    if (reason !== null || !subscription) {
      await deliveries.cancel(delivery._id, reason ?? 'subscription_deleted', now());
      observer?.finished(ctx, 'cancelled', reason ?? 'subscription_deleted');
      return {
        attemptId: null,
        attemptNumber: input.attemptNumber,
        outcome: 'cancelled',
        statusCode: null,
        deliveryStatus: 'cancelled',
      };
    }
    const keyId = subscription.activeKeyId;
    const signingKey = await keys.get(keyId, async () => {
      const doc = await store.subscriptions.findKey(keyId);
      if (!doc) throw new Error(`signing key ${keyId} of subscription ${subscription._id} is missing`);
      return doc;
    });

    const signedAt = now();
    const timestamp = Math.floor(signedAt.getTime() / 1000);
    const signature = signWebhook(signingKey, delivery._id, timestamp, event.body);
    const headers = buildWebhookHeaders({
      deliveryId: delivery._id,
      eventId: event._id,
      keyId,
      timestamp,
      signature,
    });
    // On the schedule, a first attempt is due at ingest and a retry at its nextAttemptAt; others have no due time.
    const first = delivery.attemptCount === 0;
    observer?.started(ctx, input.actor !== 'system' ? null : first ? event.createdAt : delivery.nextAttemptAt, first);
    const post = await http.post(subscription.url, headers, event.body);
    observer?.made(ctx, { outcome: post.outcome, statusCode: post.statusCode, latencyMs: post.latencyMs });

    const attempt: AttemptDoc = {
      _id: randomUUID(),
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
    return await settle(await deliveries.recordAttempt(attempt), input, ctx);
  };

  /** Writes a recorded attempt's effect on its delivery (idempotent: a $set by _id) and answers the workflow. */
  async function settle(attempt: AttemptDoc, input: AttemptInput, ctx: DeliveryLogContext): Promise<AttemptResult> {
    const status: DeliveryStatus =
      attempt.outcome === 'succeeded' ? 'succeeded' : input.retryInSeconds === null ? 'failed' : 'pending';
    const next = status === 'pending' ? attempt.createdAt.getTime() + (input.retryInSeconds ?? 0) * 1000 : null;
    const written = await deliveries.applyAttempt(attempt.deliveryId, {
      status,
      attemptCount: attempt.attemptNumber,
      nextAttemptAt: next === null ? null : new Date(next),
      terminalReason: status === 'failed' ? 'retries_exhausted' : null,
      lastResponseSummary: attempt.responseSummary,
      updatedAt: now(),
    });
    if (written !== 'pending') observer?.finished(ctx, written, terminalReasonOf(written));
    return resultOf(attempt, written);
  }
}
