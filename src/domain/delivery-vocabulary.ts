// The delivery vocabulary, declared once: the workflow types, the HTTP client, the stored documents, the API schemas
// and the repositories all derive from these lists. Pure data and zod: safe for workflow code to import types from.
import { z } from 'zod';

/** pending while attempts remain; the other three are terminal. */
export const deliveryStatuses = ['pending', 'succeeded', 'failed', 'cancelled'] as const;
export type DeliveryStatus = (typeof deliveryStatuses)[number];
export const terminalStatuses = ['succeeded', 'failed', 'cancelled'] as const satisfies readonly DeliveryStatus[];

/**
 * What a POST came to: 2xx, any other answer (3xx included: no redirect is followed), or no answer;
 * `endpoint_unresponsive`: recorded by earlier versions of Herald for an attempt its breaker held back without a
 * request; kept so their records still read. No attempt is recorded so now: the delivery waits (`waitReasons`).
 */
export const postOutcomes = [
  'succeeded',
  'http_error',
  'timeout',
  'connection_error',
  'blocked',
  'endpoint_unresponsive',
] as const;
export type PostOutcome = (typeof postOutcomes)[number];

/**
 * An attempt's outcome: a POST's, `cancelled` when the delivery ended before any request was made,
 * `signing_key_unavailable` when its signing key could not be opened (no request; the delivery failed), `held`
 * when its subscription is paused (no request, no attempt used: the run waits for the release signal), or
 * `recording_failed` when earlier POSTs of it could not be recorded (no further request; the delivery failed).
 */
export const attemptOutcomes = [
  ...postOutcomes,
  'cancelled',
  'signing_key_unavailable',
  'held',
  'recording_failed',
] as const;
export type AttemptOutcome = (typeof attemptOutcomes)[number];

/**
 * Why a delivery waits without a request (its run sleeps; no attempt number, no schedule step used): its subscription
 * is paused (until the resume's release), the integrator's requests to that origin keep timing out (its breaker), or
 * the integrator holds its share of the worker's attempt slots (src/net/attempt-gate.ts), or (ordered delivery) an
 * earlier delivery of its subscription has not ended yet (src/ordering/fifo-turns.ts).
 */
export const waitReasons = ['subscription_paused', 'endpoint_unresponsive', 'integrator_busy', 'fifo_turn'] as const;
export type WaitReason = (typeof waitReasons)[number];
/** The waits a capacity guard decides (a paused subscription's is the `held` mark). */
export type GateWaitReason = Exclude<WaitReason, 'subscription_paused' | 'fifo_turn'>;

/** Who caused an attempt: the schedule, an integrator's manual retry, or the test endpoint. */
export const actors = ['system', 'manual', 'test'] as const;
export type Actor = (typeof actors)[number];

/** Why a delivery is failed or cancelled. */
export const terminalReasons = [
  'retries_exhausted',
  'subscription_deleted',
  'subscription_disabled',
  'not_started',
  'signing_key_unavailable',
  'cancelled_by_integrator',
  'event_of_another_integrator',
  'recording_failed',
] as const;
export type TerminalReason = (typeof terminalReasons)[number];

/**
 * Why a subscription is paused: its integrator asked, its endpoint answered 410 Gone, it kept failing, or (ordered
 * delivery) one of its deliveries failed after its whole schedule.
 */
export const pauseReasons = ['manual', 'endpoint_gone', 'endpoint_unhealthy', 'delivery_failed'] as const;
export type PauseReason = (typeof pauseReasons)[number];

export const deliveryStatusSchema = z.enum(deliveryStatuses);
export const attemptOutcomeSchema = z.enum(attemptOutcomes);
export const actorSchema = z.enum(actors);
export const terminalReasonSchema = z.enum(terminalReasons);
export const waitReasonSchema = z.enum(waitReasons);

/** What an attempt keeps of the receiver's answer: enough to debug, nothing sensitive. */
export const responseSummarySchema = z.object({
  status: z.number().int(),
  headers: z
    .record(z.string(), z.string())
    .describe('content-type, content-length, location, retry-after only; each value at most 256 bytes'),
  body: z.string().describe('the first 1 KiB of the response body, decoded as UTF-8 (cut before a character)'),
  truncated: z.boolean().describe('more bytes followed (not read), or the body could not be read to its end'),
});
export type ResponseSummary = z.infer<typeof responseSummarySchema>;
