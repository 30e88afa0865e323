// What the activities ask of the delivery service (src/delivery/service.ts): every workflow they start, signal or
// query goes through it. Declared here, on the activities' side, so that the activities import no module that
// starts workflows (the workflows import the activities' type: that would close a circle).
import type { PauseReason } from '../src/domain/delivery-vocabulary.js';
import type { DeliveryDoc, SubscriptionDoc } from '../src/store/documents.js';
import type { CampaignProgress, CampaignState } from '../workflows/recovery-messages.js';

export interface DeliveryPort {
  /**
   * Pauses a subscription for Herald's own reason (410 Gone, sustained failure) and records the operational event;
   * answers whether this call (or an earlier, interrupted one) paused it.
   */
  autoPause(subscription: SubscriptionDoc, reason: Exclude<PauseReason, 'manual'>, at: Date): Promise<boolean>;
  /** Starts the release of a resumed subscription's held deliveries (the probe's resume). */
  release(subscriptionId: string): Promise<void>;
  /** Sends the release signal to a held delivery's run; false when that run has ended. */
  signalRelease(deliveryId: string): Promise<boolean>;
  /** The place in its ordered lane of a delivery's running run; null when none runs or it holds none. */
  fifoSeqOf(deliveryId: string): Promise<number | null>;
  /** One more attempt of a delivery, as a manual retry asks for it (a campaign's re-delivery). */
  retry(
    delivery: DeliveryDoc,
  ): Promise<
    | { ok: true; attemptNumber: number }
    | { ok: false; reason: 'subscription_deleted' | 'delivery_busy' | 'out_of_order' }
  >;
  /** The state of the campaign whose workflow has this id (the re-delivery gate asks its own). */
  campaignState(workflowId: string): Promise<CampaignState>;
  /** A deleted subscription's pending deliveries, cancelled and their workflows told (an erasure's). */
  cancelPending(subscription: { integratorId: string; _id: string }): Promise<number>;
  /** Cancels one pending delivery and tells its run (a subject's erasure); `ok` false when it had ended. */
  cancel(delivery: DeliveryDoc): Promise<{ ok: boolean }>;
  /** Cancels a running or paused campaign (an erasure's); a campaign that has ended stays as it ended. */
  controlCampaign(campaign: CampaignProgress, control: 'cancel'): Promise<{ ok: boolean }>;
}
