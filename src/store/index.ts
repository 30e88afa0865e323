import type { Db } from 'mongodb';
import { chooseListing, type ListingBounds, type ListingLayout, type PageSizes } from './listing/index.js';

export { listingBoundsOf } from './listing/index.js';
import { createIntegratorsRepo } from './integrators-repo.js';
import { eventsRepoWith } from './events-repo.js';
import { createSubscriptionsRepo } from './subscriptions-repo.js';
import { deliveriesRepoWith } from './deliveries-repo.js';
import { createAttemptsRepo } from './attempts-repo.js';
import { createExpiringRepo } from './expiring-repo.js';
import { createIdempotencyRepo } from './idempotency-repo.js';
import { createHealthRepo } from './health-repo.js';
import { createCampaignProgressRepo } from './campaign-progress-repo.js';
import { createCampaignSlotsRepo } from './campaign-slots-repo.js';
import { createDeliveryReportsRepo } from './delivery-reports.js';
import { createPortalSessionsRepo } from './portal-sessions-repo.js';
import { createAttemptStatsRepo } from './attempt-stats-repo.js';
import { createFifoLanesRepo } from './fifo-lanes-repo.js';

/**
 * All repositories, built once per process over one database. The listings' layout (pages or indexes,
 * docs/events.md) is chosen here, once: the events and deliveries repositories receive the chosen listing.
 */
export function createStore(
  db: Db,
  options: { listingLayout?: ListingLayout; listingBounds?: ListingBounds; pageSizes?: Partial<PageSizes> } = {},
) {
  const listing = chooseListing(db, options.listingLayout, options.pageSizes, options.listingBounds);
  return {
    db,
    integrators: createIntegratorsRepo(db),
    events: eventsRepoWith(db, listing),
    subscriptions: createSubscriptionsRepo(db),
    deliveries: deliveriesRepoWith(db, listing),
    attempts: createAttemptsRepo(db),
    expiring: createExpiringRepo(db),
    idempotency: createIdempotencyRepo(db),
    health: createHealthRepo(db),
    campaignSlots: createCampaignSlotsRepo(db),
    campaignProgress: createCampaignProgressRepo(db),
    deliveryReports: createDeliveryReportsRepo(db),
    portalSessions: createPortalSessionsRepo(db),
    attemptStats: createAttemptStatsRepo(db),
    fifoLanes: createFifoLanesRepo(db),
    /** Where retention finds the oldest deliveries and events, and removes their listing rows (src/retention). */
    retention: listing.retention,
  } as const;
}

export type Store = ReturnType<typeof createStore>;
