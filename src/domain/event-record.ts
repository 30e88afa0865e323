import type { EventRecord } from './event.js';
import { serializeEventPayload, type EventPayloadFields } from './event-payload.js';

/**
 * The stored form of a new event: the §6.4 body serialised once, createdAt set by the server.
 * The body is also the canonical content that idempotent re-submission compares. `data` lives only in the body,
 * as the producer's text: BSON cannot hold every JSON value, and a parsed copy could differ from what was sent.
 */
export function newEventDoc(fields: EventPayloadFields, createdAt: Date = new Date()): EventRecord {
  const { id, data: _data, ...rest } = fields;
  return { _id: id, ...rest, createdAt, body: serializeEventPayload(fields) };
}

/** An event Herald makes itself (test sends, operational events): no routing ids, provider `service`, version 1. */
export function heraldEventDoc(
  fields: Pick<EventPayloadFields, 'id' | 'eventType' | 'integratorId' | 'livemode' | 'data'>,
  at: Date,
): EventRecord {
  const none = { accountId: null, userId: null, entityId: null, beneficiaryId: null, transactionId: null };
  const service = { provider: 'service', providerEventId: null } as const;
  return newEventDoc({ ...fields, occurredAt: at, payloadVersion: 1, ...none, ...service }, at);
}

/**
 * The §2.1 history item of a stored event as JSON text: the delivery body (the §2.1 fields in order, without
 * createdAt) with createdAt appended. Listing and delivery therefore can never disagree on an event's content,
 * and a page is built without re-serialising each event.
 */
export function historyItemJson(event: Pick<EventRecord, 'body' | 'createdAt'>): string {
  return `${event.body.slice(0, -1)},"createdAt":"${event.createdAt.toISOString()}"}`;
}

/** §2.2 list response as JSON text. */
export function eventPageJson(events: ReadonlyArray<Pick<EventRecord, 'body' | 'createdAt'>>, next: string | null) {
  return `{"events":[${events.map(historyItemJson).join(',')}],"nextCursor":${JSON.stringify(next)}}`;
}
