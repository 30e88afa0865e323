import { Context } from '@temporalio/activity';
import { purgeExpired, type PurgeReport, type RetentionPolicy } from '../src/retention/purge.js';
import type { Store } from '../src/store/index.js';
import type { DeliveryPort } from './delivery-port.js';

export interface RetentionDeps {
  readonly store: Store;
  readonly policy: RetentionPolicy;
  /** Asked whether a campaign recorded as live still runs; without it the recorded state is believed. */
  readonly delivery?: Pick<DeliveryPort, 'campaignState'>;
}

/** A heartbeat after each batch, when called inside an activity (tests call it alone). */
function heartbeat(): void {
  try {
    Context.current().heartbeat();
  } catch {
    // not in an activity
  }
}

/** The retention workflow's activity: one budgeted pass of the purge (src/retention/purge.ts). */
export function createRetentionActivities(deps: RetentionDeps) {
  const campaignState = deps.delivery && ((id: string) => deps.delivery!.campaignState(id));
  return {
    async purgeExpired(): Promise<PurgeReport> {
      return await purgeExpired(
        { store: deps.store, progress: heartbeat, ...(campaignState ? { campaignState } : {}) },
        deps.policy,
      );
    },
  };
}
