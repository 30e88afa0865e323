import { z } from 'zod';
import {
  actorSchema,
  attemptOutcomeSchema,
  deliveryStatusSchema,
  responseSummarySchema,
  terminalReasonSchema,
  waitReasonSchema,
} from '../../domain/delivery-vocabulary.js';
import { historyEventTypes } from '../../domain/event-types.js';
import { cursorParam, dateTime, givenOnce, createdRange, limitParam, boundedNextCursor, uuid } from './common.js';
import { heraldEventType } from './subscriptions.js';

const deliveryStatus = deliveryStatusSchema.describe(
  'pending while attempts remain; succeeded, failed (retries exhausted) and cancelled are terminal',
);

const attemptOutcome = attemptOutcomeSchema.describe(
  'succeeded: 2xx; http_error: any other status (3xx included); blocked: non-public address, no request; ' +
    'endpoint_unresponsive: recorded by earlier versions of Herald for an attempt its breaker held back without a ' +
    'request; ' +
    "no longer recorded (such attempts now wait: see the delivery's waitReason)",
);

const responseSummary = responseSummarySchema.meta({ id: 'ResponseSummary' });

export const delivery = z
  .object({
    id: uuid,
    subscriptionId: uuid,
    eventId: uuid,
    eventType: z.string(),
    status: deliveryStatus,
    attemptCount: z.number().int(),
    createdAt: dateTime,
    updatedAt: dateTime,
    nextAttemptAt: dateTime.nullable().describe('when the next scheduled attempt is due; null once terminal'),
    terminalReason: terminalReasonSchema.nullable().describe('null unless failed or cancelled'),
    lastResponseSummary: responseSummary.nullable(),
    held: z
      .boolean()
      .describe(
        'true while pending and held by its paused subscription: no attempt is made (none of its schedule used) ' +
          'until the subscription is resumed',
      ),
    waitReason: waitReasonSchema
      .nullable()
      .describe(
        'why a pending delivery waits without a request now (no attempt recorded, none of its schedule used): ' +
          'subscription_paused (held until resumed), endpoint_unresponsive (the last requests to its endpoint timed ' +
          'out: it tries again when the endpoint answers), integrator_busy (the integrator already has its share of ' +
          "the worker's attempts in flight), fifo_turn (its subscription delivers in order and an earlier delivery has " +
          'not ended: no nextAttemptAt); nextAttemptAt says until when; null when it does not wait',
      ),
  })
  .meta({ id: 'Delivery' });

export const attempt = z
  .object({
    id: uuid,
    deliveryId: uuid,
    attemptNumber: z.number().int(),
    outcome: attemptOutcome,
    signedAt: dateTime,
    signedTimestamp: z.string().describe('the X-Service-Webhook-Timestamp sent (Unix seconds)'),
    createdAt: dateTime,
    signingKeyId: uuid,
    statusCode: z.number().int().nullable().describe("the receiver's HTTP status; null when no answer came"),
    error: z
      .string()
      .nullable()
      .describe('why no answer came: the error\'s code and message (e.g. "ECONNREFUSED: …"); null when one came'),
    latencyMs: z.number().int(),
    responseSummary: responseSummary.nullable(),
    actor: actorSchema,
    address: z.string().nullable().describe('the IP address connected to'),
    retryAfterSeconds: z
      .number()
      .int()
      .nullable()
      .describe('seconds the receiver asked to wait with Retry-After (429 and 503 only); null when it asked none'),
    retryInSeconds: z
      .number()
      .int()
      .nullable()
      .describe(
        'seconds waited after this attempt before the next scheduled one: the schedule, lengthened by Retry-After up ' +
          'to its cap; null when no scheduled attempt followed',
      ),
  })
  .meta({ id: 'Attempt' });

/** Where the attempts shown continue: GET /v1/webhooks/deliveries/{delivery_id}/attempts?after=… (Herald's own). */
export const attemptsNextAfter = z
  .number()
  .int()
  .nullable()
  .describe('the attempt number to pass as `after` for the next page of attempts; null when none follows');

export const deliveryWithAttempts = delivery
  .extend({
    attempts: z.array(attempt).describe('its first 100 attempts, oldest first (the rest: attemptsNextAfter)'),
    attemptsNextAfter,
  })
  .meta({ id: 'DeliveryWithAttempts' });

export const attemptPage = z.object({ attempts: z.array(attempt), nextAfter: attemptsNextAfter }).meta({
  id: 'AttemptPage',
});

export const attemptsQuery = z.strictObject({
  after: z
    .string(givenOnce)
    .regex(/^[0-9]{1,10}$/, 'must be an attempt number')
    .transform(Number)
    .default(0)
    .meta({ type: 'integer', minimum: 0, maximum: 9_999_999_999, default: 0 })
    .describe('list the attempts numbered after this one (nextAfter of the previous page)'),
  limit: limitParam,
});

export const deliveryPage = z
  .object({ deliveries: z.array(delivery), nextCursor: boundedNextCursor })
  .meta({ id: 'DeliveryPage' });

export const deliveriesQuery = z.strictObject({
  subscriptionId: uuid.optional(),
  eventId: uuid.optional(),
  status: deliveryStatus.optional(),
  // The spec's history enum and Herald's own, each its own enum in the document (never one merged enum).
  eventType: z
    .union([z.enum(historyEventTypes), heraldEventType], {
      error: (issue) =>
        Array.isArray(issue.input)
          ? 'must be given at most once'
          : `${JSON.stringify(issue.input)} is not an event type`,
    })
    .optional()
    .describe("the delivered event's type (webhook.test: test sends; Herald's own events included)"),
  ...createdRange,
  cursor: cursorParam.optional(),
  limit: limitParam,
});

export const deliveryParams = z.strictObject({ delivery_id: uuid });

const routingId = uuid.nullable();
/** §2.5 `event`: the webhook.test event as stored, `payload` being the exact body that was sent. */
const testEvent = z
  .object({
    id: uuid,
    eventType: z.literal('webhook.test'),
    sourceType: z.literal('subscription'),
    sourceId: uuid.describe('the subscription the test was sent to'),
    payload: z.unknown().describe('the delivered JSON body (§6.4)'),
    payloadVersion: z.number().int(),
    createdAt: dateTime,
    integratorId: uuid,
    accountId: routingId,
    userId: routingId,
    entityId: routingId,
    beneficiaryId: routingId,
    transactionId: routingId,
  })
  .meta({ id: 'TestEvent' });

export const testDeliveryResponse = z
  .object({ event: testEvent, delivery, attempt })
  .meta({ id: 'TestDeliveryResponse' });

export type Delivery = z.infer<typeof delivery>;
export type DeliveryAttempt = z.infer<typeof attempt>;
export type DeliveryWithAttempts = z.infer<typeof deliveryWithAttempts>;
export type AttemptPage = z.infer<typeof attemptPage>;
export type DeliveryPage = z.infer<typeof deliveryPage>;
/** The listing's filters as a client gives them; dates as Date or ISO-8601 strings (exclusive bounds). */
export type DeliveryFilters = Omit<
  z.input<typeof deliveriesQuery>,
  'cursor' | 'limit' | 'createdAfter' | 'createdBefore'
> & {
  createdAfter?: Date | string;
  createdBefore?: Date | string;
};
export type TestDeliveryResponse = z.infer<typeof testDeliveryResponse>;
