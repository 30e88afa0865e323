import type { HistoryEventType, SpecHistoryEventType } from '../../domain/event-types.js';
import type { DeliveryStatus, TerminalReason } from '../../domain/delivery-vocabulary.js';
import type { Position } from '../cursor.js';
import type { DeliveryDoc, EventDoc } from '../documents.js';
import type { PageCollections } from '../pages/index.js';
import type { RetentionListing } from './retention.js';
import type { BoundedRows } from './scan-budget.js';

/**
 * How the events and deliveries listings are stored (docs/events.md): `pages` — page documents reached by `_id`, for
 * the embedded MongoDB-wire server (FerretDB), which evaluates every other filter over the whole collection;
 * `indexes` — plain documents and the declared indexes, for a real MongoDB. `auto` asks the server.
 */
export type ListingLayout = 'auto' | 'pages' | 'indexes';

/** Listing filters (§4.1); dates are exclusive bounds on createdAt. */
export interface EventListFilters {
  accountId?: string;
  userId?: string;
  transactionId?: string;
  eventType?: SpecHistoryEventType;
  createdAfter?: Date;
  createdBefore?: Date;
}

/** What a history page needs of each event: the stored §6.4 body and createdAt (plus _id for the cursor). */
export type EventListRow = Pick<EventDoc, '_id' | 'body' | 'createdAt'>;

/** Deliveries listing filters; dates are exclusive bounds on the delivery's createdAt. */
export interface DeliveryListFilters {
  subscriptionId?: string;
  eventId?: string;
  status?: DeliveryStatus;
  eventType?: HistoryEventType;
  createdAfter?: Date;
  createdBefore?: Date;
}

/** What a delivery is filed by: fixed at its creation. */
export type FiledDelivery = Pick<
  DeliveryDoc,
  '_id' | 'integratorId' | 'createdAt' | 'subscriptionId' | 'eventId' | 'eventType'
>;

/** The events listing on one layout. A page's rows name, on `pages`, the page a cursor after them continues from. */
export interface EventsListing {
  /** Files a stored event, and the deliveries its hand-off started (to `subscriptionIds`, at `handedOff.createdAt`). */
  file(event: EventDoc, subscriptionIds: readonly string[], handedOff: EventDoc): Promise<void>;
  /** Files many stored events at once (seeding, tests, benchmarks). */
  fileMany(events: readonly EventDoc[]): Promise<void>;
  /**
   * A page of an integrator's history, newest first, strictly after `position`; `limit` rows at most, fewer with
   * `resumeAt` when the page's scan budget ran out first (scan-budget.ts).
   */
  list(
    integratorId: string,
    filters: EventListFilters,
    position: Position | undefined,
    limit: number,
  ): Promise<BoundedRows<EventListRow & { page?: number }>>;
}

/** The deliveries listing on one layout, and the one lookup that depends on it (a subscription's pending ones). */
export interface DeliveriesListing {
  /** Files a delivery that now exists, under its status too. */
  file(delivery: FiledDelivery & Pick<DeliveryDoc, 'status'>): Promise<void>;
  /** Files many stored deliveries at once (seeding, tests, benchmarks). */
  fileMany(deliveries: readonly DeliveryDoc[]): Promise<void>;
  /** Files a delivery under the status it has just entered. */
  fileStatus(delivery: FiledDelivery, status: DeliveryStatus): Promise<void>;
  /** A page of the integrator's deliveries, newest first, after `position` (bounded as the events listing's). */
  list(
    integratorId: string,
    filters: DeliveryListFilters,
    position: Position | null,
    limit: number,
  ): Promise<BoundedRows<DeliveryDoc & { page?: number }>>;
  /** Marks a subscription's pending deliveries cancelled (terminal); returns their ids. */
  cancelPendingOf(integratorId: string, subscriptionId: string, terminalReason: TerminalReason): Promise<string[]>;
}

/** Both listings on the layout chosen once per store (chooseListing). */
export interface Listing {
  /** The layout in force (resolved on first use with `auto`): for what a benchmark or a test reports. */
  layout: () => Promise<'pages' | 'indexes'>;
  /** The page documents (written with the `pages` layout only). */
  pages: PageCollections;
  events: EventsListing;
  deliveries: DeliveriesListing;
  /** What retention walks and removes on this layout (retention.ts). */
  retention: RetentionListing;
}
