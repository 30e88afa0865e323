import type { HistoryEventType, Provider } from './event-types.js';

/**
 * An event as Herald keeps it: the §2.1 fields, the time Herald took it in, and the §6.4 body serialised once
 * (src/domain/event-payload.ts). The store keeps exactly this shape in `events`.
 */
export interface EventRecord {
  _id: string;
  integratorId: string;
  eventType: HistoryEventType;
  occurredAt: Date;
  livemode: boolean;
  payloadVersion: number;
  accountId: string | null;
  userId: string | null;
  entityId: string | null;
  beneficiaryId: string | null;
  transactionId: string | null;
  provider: Provider | null;
  providerEventId: string | null;
  /** Set by the server when the event is taken in; listings order by (createdAt desc, _id desc). */
  createdAt: Date;
  /** The §6.4 payload, sent byte-identical on every attempt. `data` is only here, as the producer's exact JSON text:
   * no field of its own (BSON cannot hold every JSON value, and a parsed copy would lose digits, escapes and key order). */
  body: string;
  /** webhook.test events only: the subscription the test was sent to. */
  sourceSubscriptionId?: string;
}
