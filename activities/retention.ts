import { purgeExpired, type PurgeReport, type RetentionPolicy } from '../src/retention/purge.js';
import type { Store } from '../src/store/index.js';
import type { DeliveryPort } from './delivery-port.js';
import { currentHeartbeat } from './keep-alive.js';

export interface RetentionDeps {
  readonly store: Store;
  readonly policy: RetentionPolicy;
  /** Asked whether a campaign recorded as live still runs; without it the recorded state is believed. */
  readonly delivery?: Pick<DeliveryPort, 'campaignState'>;
}

/** The retention workflow's activity: one budgeted pass of the purge (src/retention/purge.ts). */
export function createRetentionActivities(deps: RetentionDeps) {
  const campaignState = deps.delivery && ((id: string) => deps.delivery!.campaignState(id));
  return {
    async purgeExpired(): Promise<PurgeReport> {
      // A heartbeat after each batch, inside a worker (tests call the activity alone).
      const heartbeat = currentHeartbeat();
      return await purgeExpired(
        {
          store: deps.store,
          ...(heartbeat ? { progress: heartbeat } : {}),
          ...(campaignState ? { campaignState } : {}),
        },
        deps.policy,
      );
    },
  };
}
