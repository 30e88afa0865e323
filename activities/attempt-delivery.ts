import { randomUUID } from 'node:crypto';
import { ApplicationFailure, Context } from '@temporalio/activity';
import { buildWebhookHeaders, signWebhook } from '../src/crypto/webhook-signature.js';
import type { WebhookHttpClient } from '../src/net/http-client.js';
import type { AttemptDoc, DeliveryDoc, SubscriptionDoc } from '../src/store/documents.js';
import type { Store } from '../src/store/index.js';
import type { AttemptInput, AttemptResult, DeliveryStatus } from '../workflows/types.js';
import { SigningKeyUnavailable, type createSigningKeyCache } from './signing-keys.js';

export interface AttemptDeps {
  readonly store: Store;
  readonly keys: ReturnType<typeof createSigningKeyCache>;
  readonly http: WebhookHttpClient;
  readonly now?: () => Date;
  /** Whether this call is a retry of the activity (Temporal's attempt > 1). */
  readonly retried?: () => boolean;
  /** Error-level log of faults that need an operator (default: the activity context's logger). */
  readonly logError?: LogError;
}

export type LogError = (message: string, fields: Record<string, unknown>) => void;

const activityLogError: LogError = (message, fields) => Context.current().log.error(message, fields);

const activityRetried = (): boolean => Context.current().info.attempt > 1;

/** Why a delivery is not attempted; null when it should be. Explicit requests (manual, test) reach disabled ones. */
function cancelReason(delivery: DeliveryDoc, subscription: SubscriptionDoc | null, input: AttemptInput) {
  if (delivery.status === 'cancelled') return delivery.terminalReason ?? 'cancelled';
  if (!subscription || subscription.deletedAt) return 'subscription_deleted';
  if (subscription.status === 'disabled' && input.actor === 'system') return 'subscription_disabled';
  return null;
}

/** The answer of a call that sent nothing and recorded no attempt. */
const noRequest = (input: AttemptInput, outcome: 'cancelled' | 'signing_key_unavailable') =>
  ({ attemptId: null, attemptNumber: input.attemptNumber, outcome, statusCode: null }) as const;

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
  const { store, keys, http, now = () => new Date(), retried = activityRetried, logError = activityLogError } = deps;
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
      return { ...noRequest(input, 'cancelled'), deliveryStatus: 'cancelled' };
    }
    const keyId = subscription.activeKeyId;
    let signingKey;
    try {
      signingKey = await keys.get(keyId, () => store.subscriptions.findKey(keyId));
    } catch (err) {
      if (!(err instanceof SigningKeyUnavailable)) throw err; // the database, say: Temporal retries the activity
      // Nothing was sent. Retrying cannot open the key: end the delivery where the integrator and operators see it.
      logError('signing key unavailable: delivery failed without a request', {
        deliveryId: delivery._id,
        subscriptionId: subscription._id,
        keyId,
        reason: err.message,
      });
      const deliveryStatus = await deliveries.fail(delivery._id, 'signing_key_unavailable', now());
      return { ...noRequest(input, 'signing_key_unavailable'), deliveryStatus };
    }

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

  /** Writes a recorded attempt's effect on its delivery (idempotent: a $set by _id) and answers the workflow. */
  async function settle(attempt: AttemptDoc, input: AttemptInput): Promise<AttemptResult> {
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
    return resultOf(attempt, written);
  }
}
