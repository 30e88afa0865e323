import type { EventDoc } from '../store/documents.js';

/** §6.4 delivery body fields, in §2.1 order (createdAt is a history field, not part of the payload). */
export type EventPayloadFields = Omit<EventDoc, '_id' | 'createdAt' | 'body' | 'sourceSubscriptionId'> & {
  id: string;
};

/**
 * The delivery body of an event: serialised once when the event is stored, then sent byte-identical on every
 * attempt. Field order is fixed here, not by whoever built the object.
 */
export function serializeEventPayload(e: EventPayloadFields): string {
  return JSON.stringify({
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
    data: e.data ?? null,
  });
}
