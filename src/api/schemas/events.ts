import { z } from 'zod';
import {
  historyEventTypes,
  lifecycleEventTypes,
  providers,
  SUBSCRIBABLE_ONLY_TYPE,
  TEST_EVENT_TYPE,
} from '../../domain/event-types.js';
import {
  cursorParam,
  dateTime,
  givenOnce,
  createdRange,
  jsonValue,
  limitParam,
  boundedNextCursor,
  uuid,
} from './common.js';

// §2.1 / §2.2 / §4.1: the single source of the events API's validation, types and OpenAPI.

/** Ids are stored and compared in lowercase, so `ABC…` and `abc…` name the same event, account or user. */
const idIn = uuid.transform((s) => s.toLowerCase());
const nullableUuid = idIn.nullable().default(null);

/** POST /internal/v1/events: one §2.1 event without createdAt (the server sets it). Unknown fields → 400. */
export const publishEventBody = z.strictObject({
  id: idIn.describe('event id; re-sending the same event is idempotent'),
  eventType: z.enum(lifecycleEventTypes, {
    error: (issue) =>
      issue.input === TEST_EVENT_TYPE
        ? `${TEST_EVENT_TYPE} is not a lifecycle event: only the test endpoint (POST /v1/webhooks/subscriptions/{id}/test) creates it`
        : issue.input === SUBSCRIBABLE_ONLY_TYPE
          ? `${SUBSCRIBABLE_ONLY_TYPE} is subscribable but not in the history enum (§6.1): it cannot be published; see docs/events.md`
          : undefined,
  }),
  occurredAt: dateTime.describe('ISO-8601 date-time with Z or an offset; kept to the millisecond'),
  livemode: z.boolean(),
  payloadVersion: z.int32(),
  integratorId: idIn.describe('a registered integrator'),
  accountId: nullableUuid,
  userId: nullableUuid,
  entityId: nullableUuid,
  beneficiaryId: nullableUuid,
  transactionId: nullableUuid,
  provider: z.enum(providers).nullable().default(null),
  providerEventId: z.string().min(1).max(512).nullable().default(null),
  data: jsonValue.default(null).describe('any JSON value; its shape depends on eventType'),
});

export type PublishEventBody = z.infer<typeof publishEventBody>;

/** §2.1 event history item, fields in the order of the spec (the delivery payload of §6.4 plus createdAt). */
export const eventHistoryItem = z
  .object({
    id: uuid,
    eventType: z.enum(historyEventTypes),
    occurredAt: dateTime.describe('ISO-8601 UTC'),
    livemode: z.boolean(),
    payloadVersion: z.int32(),
    integratorId: uuid,
    accountId: uuid.nullable(),
    userId: uuid.nullable(),
    entityId: uuid.nullable(),
    beneficiaryId: uuid.nullable(),
    transactionId: uuid.nullable(),
    provider: z.enum(providers).nullable(),
    providerEventId: z.string().nullable(),
    data: jsonValue.describe('any JSON value; its shape depends on eventType'),
    createdAt: dateTime.describe('database creation time, ISO-8601 UTC'),
  })
  .meta({ id: 'EventHistoryItem' });

export type EventHistoryItem = z.infer<typeof eventHistoryItem>;

/** §2.2 */
export const listEventsResponse = z
  .object({ events: z.array(eventHistoryItem), nextCursor: boundedNextCursor })
  .meta({ id: 'ListEventsResponse' });

const uuidParam = z.uuid(givenOnce).transform((s) => s.toLowerCase());

/** GET /v1/query/events (§4.1). Strict: an unknown or repeated parameter is a 400 naming it. */
export const listEventsQuery = z.strictObject({
  accountId: uuidParam.optional(),
  userId: uuidParam.optional(),
  transactionId: uuidParam.optional(),
  eventType: z
    .enum(historyEventTypes, givenOnce)
    .optional()
    .describe(`a history event type; ${TEST_EVENT_TYPE} events are listed only when asked for by this filter`),
  ...createdRange,
  cursor: cursorParam.optional(),
  limit: limitParam.describe('page size, 1 to 250 (default 100)'),
});

export type ListEventsQuery = z.infer<typeof listEventsQuery>;
