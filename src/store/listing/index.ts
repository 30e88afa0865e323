// The events and deliveries listings, each on two layouts (pages, indexes), the layout chosen once per store
// (chooseListing). The one way into this folder.
export { chooseListing } from './choose.js';
export type {
  DeliveriesListing,
  DeliveryListFilters,
  EventListFilters,
  EventListRow,
  EventsListing,
  Listing,
  ListingLayout,
} from './listing.js';
export type { PageSizes } from '../pages/index.js';
export type { RetentionListing, Walk } from './retention.js';
export type { DeliveryRow } from './delivery-rows.js';
export { toRow, type EventRow } from './event-rows.js';
export {
  defaultListingBounds,
  ListingTimeout,
  listingBoundsOf,
  scanBudget,
  type BoundedRows,
  type ListingBounds,
} from './scan-budget.js';
export { createScanPace, type ScanPace } from './scan-pace.js';

// Which keys rows are filed under and read from, and the rounds' sizes, for tests that check them.
export { nextBatch } from './deliveries-pages.js';
export { readInRounds } from './index-rounds.js';
export { deliveryEntries, deliveryKeyFor, statusEntries } from './delivery-rows.js';
export { keyFor, keysOf } from './event-rows.js';
