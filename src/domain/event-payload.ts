import type { EventRecord } from './event.js';
import type { JsonText } from './json-text.js';

/** §6.4 delivery body fields, in §2.1 order (createdAt is a history field, not part of the payload). */
export type EventPayloadFields = Omit<EventRecord, '_id' | 'createdAt' | 'body' | 'sourceSubscriptionId'> & {
  id: string;
  /** The producer's exact JSON text of `data`, spliced in unchanged (README "Payload fidelity"). */
  data: JsonText;
};

/**
 * The delivery body of an event: serialised once when the event is stored, then sent byte-identical on every
 * attempt. Field order is fixed here, not by whoever built the object; `data` is last and never re-encoded.
 */
export function serializeEventPayload(e: EventPayloadFields): string {
  const head = JSON.stringify({
    id: e.id,
    eventType: e.eventType,
    occurredAt: e.occurredAt.toISOString(),
    livemode: e.livemode,
    payloadVersion: e.payloadVersion,
    integratorId: e.integratorId,
    accountId: e.accountId,
    userId: e.userId,
    entityId: e.entityId,
    beneficiaryId: e.beneficiaryId,
    transactionId: e.transactionId,
    provider: e.provider,
    providerEventId: e.providerEventId,
  });
  return `${head.slice(0, -1)},"data":${e.data}}`;
}
