import { randomUUID } from 'node:crypto';
import { ApplicationFailure, Context } from '@temporalio/activity';
import { buildWebhookHeaders, signWebhook } from '../src/crypto/webhook-signature.js';
import type { WebhookHttpClient } from '../src/net/http-client.js';
import { decideAttempt } from '../src/domain/attempt-rule.js';
import type { DeliveryStatus } from '../src/domain/delivery-vocabulary.js';
import type { AttemptDoc, DeliveryDoc, SubscriptionDoc } from '../src/store/documents.js';
import type { Store } from '../src/store/index.js';
import type { AttemptInput, AttemptResult } from '../workflows/types.js';
import type { createSigningKeyCache } from './signing-keys.js';

export interface AttemptDeps {
  readonly store: Store;
  readonly keys: ReturnType<typeof createSigningKeyCache>;
  readonly http: WebhookHttpClient;
  readonly now?: () => Date;
  /** Whether this call is a retry of the activity (Temporal's attempt > 1). */
  readonly retried?: () => boolean;
}

const activityRetried = (): boolean => Context.current().info.attempt > 1;

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

/**
 * One attempt: sign the stored body, POST it through the pinned client, record the attempt and update the delivery.
 * Receiver problems are outcomes; only our own faults throw (Temporal retries the activity). Idempotent: a retried
 * activity whose attempt is already recorded returns it without sending again.
 */
export function createAttemptDelivery(deps: AttemptDeps) {
  const { store, keys, http, now = () => new Date(), retried = activityRetried } = deps;
  const { deliveries } = store;

  return async function attemptDelivery(input: AttemptInput): Promise<AttemptResult> {
    const delivery = await deliveries.findById(input.deliveryId);
    if (!delivery) throw ApplicationFailure.nonRetryable(`delivery ${input.deliveryId} not found`, 'DeliveryNotFound');
    // Only a retried activity can find its attempt recorded already (attempt numbers are never reused). Its effect
    // on the delivery may not have been written (the retry may be for exactly that write): write it again.
    const recorded = retried() ? await deliveries.findAttempt(delivery._id, input.attemptNumber) : null;
    if (recorded) return await settle(recorded, input);

    const [event, subscription] = await Promise.all([
      store.events.findById(delivery.eventId),
      store.subscriptions.findById(delivery.subscriptionId),
    ]);
    if (!event) throw ApplicationFailure.nonRetryable(`event ${delivery.eventId} not found`, 'DeliveryNotFound');
    const reason = cancelReason(delivery, subscription, input);
    if (reason !== null || !subscription) {
      await deliveries.cancel(delivery._id, reason ?? 'subscription_deleted', now());
      return {
        attemptId: null,
        attemptNumber: input.attemptNumber,
        outcome: 'cancelled',
        statusCode: null,
        deliveryStatus: 'cancelled',
        retryInSeconds: null,
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
    const post = await http.post(subscription.url, headers, event.body);

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
    return await settle(await deliveries.recordAttempt(attempt), input);
  };

  /**
   * Writes a recorded attempt's effect on its delivery, as the attempt rule decides it (idempotent: a $set by _id),
   * and answers the workflow with the status written and the wait before the next attempt.
   */
  async function settle(attempt: AttemptDoc, input: AttemptInput): Promise<AttemptResult> {
    const verdict = decideAttempt({
      outcome: attempt.outcome,
      statusCode: attempt.statusCode,
      headers: attempt.responseSummary?.headers ?? {},
      attemptNumber: attempt.attemptNumber,
      followSchedule: followsSchedule(input),
    });
    const { retryInSeconds } = verdict;
    const written: DeliveryStatus = await deliveries.applyAttempt(attempt.deliveryId, {
      status: verdict.status,
      attemptCount: attempt.attemptNumber,
      nextAttemptAt: retryInSeconds === null ? null : new Date(attempt.createdAt.getTime() + retryInSeconds * 1000),
      terminalReason: verdict.terminalReason,
      lastResponseSummary: attempt.responseSummary,
      updatedAt: now(),
    });
    return {
      attemptId: attempt._id,
      attemptNumber: attempt.attemptNumber,
      outcome: attempt.outcome,
      statusCode: attempt.statusCode,
      deliveryStatus: written,
      retryInSeconds: written === 'pending' ? retryInSeconds : null,
    };
  }
}
