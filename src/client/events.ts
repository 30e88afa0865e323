import type { z } from 'zod';
import type { listEventsResponse } from '../api/schemas/events.js';
import type { SpecHistoryEventType, LifecycleEventType, Provider } from '../domain/event-types.js';

/** §2.1 history item and §2.2 page, as the API's zod schemas define them (src/api/schemas/events.ts). */
export type { EventHistoryItem } from '../api/schemas/events.js';
export type EventPage = z.infer<typeof listEventsResponse>;

/** §4.1 filters; dates may be given as Date or ISO-8601 strings. createdAfter/createdBefore are exclusive. */
export interface EventFilters {
  accountId?: string;
  userId?: string;
  transactionId?: string;
  eventType?: SpecHistoryEventType;
  createdAfter?: Date | string;
  createdBefore?: Date | string;
  /** Page size 1–250 (server default 100). */
  limit?: number;
}

/** A lifecycle event to publish (§2.1 without createdAt); omitted routing ids and provider fields mean null. */
export interface PublishEventInput {
  id: string;
  eventType: LifecycleEventType;
  occurredAt: string | Date;
  livemode: boolean;
  payloadVersion: number;
  integratorId: string;
  accountId?: string | null;
  userId?: string | null;
  entityId?: string | null;
  beneficiaryId?: string | null;
  transactionId?: string | null;
  provider?: Provider | null;
  providerEventId?: string | null;
  data?: unknown;
}
