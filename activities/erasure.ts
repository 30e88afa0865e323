import type { CampaignProgressDoc } from '../src/store/campaign-progress-repo.js';
import type { SubscriptionDoc } from '../src/store/documents.js';
import type { Store } from '../src/store/index.js';
import { eraseRecords, type RecordCounts } from '../src/retention/erase-records.js';
import { subjectErasurePass } from '../src/retention/erase-subject.js';
import { purgeIntegrator } from '../src/retention/purge-integrator.js';
import type { ItemCounts } from '../src/retention/purge-items.js';
import type { SubjectErasureInput, WalkPosition } from '../workflows/erasure-messages.js';
import type { DeliveryPort } from './delivery-port.js';
import { currentHeartbeat } from './keep-alive.js';

export interface ErasureDeps {
  readonly store: Store;
  /** Cancels the integrator's pending deliveries and campaigns; absent (tests calling activities alone): not configured. */
  readonly delivery?: Pick<DeliveryPort, 'cancelPending' | 'controlCampaign' | 'cancel'>;
  /** Rows a batch examines and the pause after it (the retention's). */
  readonly pace: { batch: number; pauseMs: number; duty: number };
}

/** How long one eraseHistory call works before it answers `more`. */
const CALL_BUDGET_MS = 60_000;

/** The erasure workflow's steps (workflows/erasure.ts), each idempotent. */
export function createErasureActivities(deps: ErasureDeps) {
  const { store } = deps;
  return {
    /** Marks the integrator erasing (ingestion refuses its events) and revokes its keys; false when it is gone. */
    async beginErasure(integratorId: string): Promise<boolean> {
      return await store.integrators.beginErasure(integratorId);
    },

    /** Deletes every subscription (its pending deliveries cancelled, their runs told) and cancels every campaign. */
    async endLiveWork(integratorId: string): Promise<{ deliveries: number; campaigns: number }> {
      const delivery = deps.delivery;
      if (!delivery) throw new Error('the erasure needs the delivery service');
      const subscriptions = await store.db
        .collection<SubscriptionDoc>('subscriptions')
        .find({ integratorId }, { projection: { _id: 1 } })
        .toArray();
      const heartbeat = currentHeartbeat();
      let deliveries = 0;
      for (const { _id } of subscriptions) {
        await store.subscriptions.softDelete(integratorId, _id);
        deliveries += await delivery.cancelPending({ integratorId, _id });
        heartbeat?.();
      }
      const live = await store.db
        .collection<CampaignProgressDoc>('campaign_progress')
        .find({ integratorId, state: { $in: ['running', 'paused'] } })
        .toArray();
      for (const { _id: _, updatedAt: __, ...campaign } of live) await delivery.controlCampaign(campaign, 'cancel');
      return { deliveries, campaigns: live.length };
    },

    /** Deletes its deliveries, attempts and events with their listing rows, for about a minute; `more` if not done. */
    async eraseHistory(integratorId: string): Promise<ItemCounts & { more: boolean }> {
      const heartbeat = currentHeartbeat();
      const counts: ItemCounts = { deliveries: 0, attempts: 0, events: 0 };
      const done = await purgeIntegrator(
        store,
        integratorId,
        { cutoff: new Date(), erase: true },
        { ...deps.pace, deadline: Date.now() + CALL_BUDGET_MS },
        (c) => {
          counts.deliveries += c.deliveries;
          counts.attempts += c.attempts;
          counts.events += c.events;
          heartbeat?.();
        },
      );
      return { ...counts, more: !done };
    },

    /** One call of a subject's erasure (workflows/subject-erasure.ts), for about a minute, from `from`. */
    async subjectErasurePass(input: SubjectErasureInput, mode: 'cancel' | 'erase', from: WalkPosition) {
      const delivery = deps.delivery;
      if (!delivery) throw new Error('the erasure needs the delivery service');
      const heartbeat = currentHeartbeat();
      const subject = { ...input, before: new Date(input.before) };
      const pace = { ...deps.pace, deadline: Date.now() + CALL_BUDGET_MS };
      return await subjectErasurePass(store, (d) => delivery.cancel(d), subject, mode, from, pace, heartbeat);
    },

    /** Its subscriptions, keys, campaigns' progress, page documents left, then the integrator itself. */
    async eraseRecords(integratorId: string): Promise<RecordCounts> {
      return await eraseRecords(store, integratorId);
    },
  };
}
