import type { WaitReason } from '../../domain/delivery-vocabulary.js';
import type { AttemptDoc, DeliveryDoc, EventDoc } from '../../store/documents.js';

const iso = (d: Date): string => d.toISOString();

/** Why a pending delivery waits now; a guard's wait is over once its time has passed (the run asks again). */
function waitReasonOf(d: DeliveryDoc): WaitReason | null {
  if (d.status !== 'pending') return null;
  if (d.held === true) return 'subscription_paused';
  if (d.waitReason === 'fifo_turn') return 'fifo_turn'; // until the delivery before it ends: no time
  if (!d.waitReason || !d.nextAttemptAt || d.nextAttemptAt.getTime() < Date.now()) return null;
  return d.waitReason;
}

export const deliveryView = (d: DeliveryDoc) => ({
  id: d._id,
  subscriptionId: d.subscriptionId,
  eventId: d.eventId,
  eventType: d.eventType,
  status: d.status,
  attemptCount: d.attemptCount,
  createdAt: iso(d.createdAt),
  updatedAt: iso(d.updatedAt),
  nextAttemptAt: d.nextAttemptAt ? iso(d.nextAttemptAt) : null,
  terminalReason: d.terminalReason ?? null,
  // The MongoDB-wire server (FerretDB 1.24) drops null fields of an upsert's $setOnInsert: a delivery created by
  // cancel() or fail() before any attempt has no such field stored.
  lastResponseSummary: d.lastResponseSummary ?? null,
  held: d.status === 'pending' && d.held === true,
  waitReason: waitReasonOf(d),
});

export const attemptView = (a: AttemptDoc) => ({
  id: a._id,
  deliveryId: a.deliveryId,
  attemptNumber: a.attemptNumber,
  outcome: a.outcome,
  signedAt: iso(a.signedAt),
  signedTimestamp: a.signedTimestamp,
  createdAt: iso(a.createdAt),
  signingKeyId: a.signingKeyId,
  statusCode: a.statusCode,
  error: a.error,
  latencyMs: a.latencyMs,
  responseSummary: a.responseSummary,
  actor: a.actor,
  address: a.address,
  retryAfterSeconds: a.retryAfterSeconds ?? null,
  retryInSeconds: a.retryInSeconds ?? null,
});

/** How many attempts a delivery's detail shows; the rest are paged (GET …/deliveries/{id}/attempts). */
export const ATTEMPTS_SHOWN = 100;

/** A page of attempts as the API shows it. */
export const attemptPageView = (page: { attempts: AttemptDoc[]; nextAfter: number | null }) => ({
  attempts: page.attempts.map(attemptView),
  nextAfter: page.nextAfter,
});

/** §2.5 `event` of a test delivery sent to `subscriptionId`. */
export const testEventView = (e: EventDoc, subscriptionId: string) => ({
  id: e._id,
  eventType: 'webhook.test' as const,
  sourceType: 'subscription' as const,
  sourceId: subscriptionId,
  payload: JSON.parse(e.body) as unknown,
  payloadVersion: e.payloadVersion,
  createdAt: iso(e.createdAt),
  integratorId: e.integratorId,
  accountId: e.accountId,
  userId: e.userId,
  entityId: e.entityId,
  beneficiaryId: e.beneficiaryId,
  transactionId: e.transactionId,
});
