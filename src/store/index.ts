import type { Db } from 'mongodb';
import type { ListingLayout } from './listing-layout.js';
import { createIntegratorsRepo } from './integrators-repo.js';
import { createEventsRepo } from './events-repo.js';
import { createSubscriptionsRepo } from './subscriptions-repo.js';
import { createDeliveriesRepo } from './deliveries-repo.js';
import { createAttemptsRepo } from './attempts-repo.js';
import { createExpiringRepo } from './expiring-repo.js';
import { createHealthRepo } from './health-repo.js';
import { createCampaignSlotsRepo } from './campaign-slots-repo.js';

/** All repositories, built once per process over one database. */
export function createStore(db: Db, options: { listingLayout?: ListingLayout } = {}) {
  return {
    db,
    integrators: createIntegratorsRepo(db),
    events: createEventsRepo(db, options.listingLayout),
    subscriptions: createSubscriptionsRepo(db),
    deliveries: createDeliveriesRepo(db, options.listingLayout),
    attempts: createAttemptsRepo(db),
    expiring: createExpiringRepo(db),
    health: createHealthRepo(db),
    campaignSlots: createCampaignSlotsRepo(db),
  } as const;
}

export type Store = ReturnType<typeof createStore>;
