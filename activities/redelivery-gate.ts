// What a campaign re-delivery must pass before it is asked for (issue 32, bounded amplification): its subscription
// not paused, its campaign still running, no other campaign's re-send of it within the window, and the integrator's
// hourly re-send budget (shared with manual retries). A hold fails the activity with the delay Temporal retries it
// after, so the campaign waits without any change to its workflow (nothing of a failed attempt enters the history).
import { ApplicationFailure, Context } from '@temporalio/activity';
import { ApplicationFailureCategory } from '@temporalio/common';
import { useHourlyQuota } from '../src/store/hourly-quota.js';
import type { Config } from '../src/config.js';
import type { DeliveryDoc } from '../src/store/documents.js';
import type { Store } from '../src/store/index.js';
import type { DeliveryPort } from './delivery-port.js';

export interface ResendLimits {
  /** HERALD_RESEND_BUDGET_PER_HOUR. */
  readonly perHour: number;
  /** HERALD_CAMPAIGN_RESEND_WINDOW_HOURS in ms; 0: no mark. */
  readonly windowMs: number;
}

/** The limits as configured (src/config.ts). */
export const resendLimitsOf = (
  config: Pick<Config, 'HERALD_RESEND_BUDGET_PER_HOUR' | 'HERALD_CAMPAIGN_RESEND_WINDOW_HOURS'>,
): ResendLimits => ({
  perHour: config.HERALD_RESEND_BUDGET_PER_HOUR,
  windowMs: config.HERALD_CAMPAIGN_RESEND_WINDOW_HOURS * 3_600_000,
});

/** The longest a hold waits before it looks again: a pause, resume or cancel is seen within it. */
const RECHECK_MS = 60_000;
/** A paused subscription is looked at again this often. */
const PAUSED_RECHECK_MS = 5_000;

const RESEND_HELD = 'ResendHeld';
/** Benign: a hold is the gate working, so the worker logs it at DEBUG and counts no failure in its metrics. */
const hold = (message: string, ms: number) =>
  ApplicationFailure.create({
    type: RESEND_HELD,
    message,
    nextRetryDelay: Math.max(1000, Math.ceil(ms)),
    category: ApplicationFailureCategory.BENIGN,
  });

/** The campaign this activity runs for (its workflow id), or null outside a worker (tests calling it directly). */
function campaignRun(): { workflowId: string; attempt: number } | null {
  try {
    const info = Context.current().info;
    const workflowId = info.workflowExecution?.workflowId;
    return workflowId ? { workflowId, attempt: info.attempt } : null;
  } catch {
    return null;
  }
}

export function createRedeliveryGate(deps: {
  store: Store;
  /** Asks a campaign's workflow for its state; null outside a worker. */
  campaignState: DeliveryPort['campaignState'] | null;
  limits: ResendLimits;
}) {
  const { store, limits } = deps;
  return {
    /**
     * Before a retried batch: whether its campaign was cancelled while the batch was held (then nothing more is
     * asked for); a paused campaign holds the batch.
     */
    async cancelled(): Promise<boolean> {
      const current = campaignRun();
      if (!current || current.attempt === 1 || !deps.campaignState) return false;
      const state = await deps.campaignState(current.workflowId);
      if (state === 'paused') throw hold('the campaign is paused', RECHECK_MS);
      return state === 'cancelled';
    },

    /**
     * 'skip' when its subscription is gone or another campaign re-sent it within the window (no budget taken);
     * throws a hold; 'go' after taking one unit of the budget.
     */
    async admit(delivery: DeliveryDoc, now = new Date()): Promise<'go' | 'skip'> {
      const subscription = await store.subscriptions.findById(delivery.subscriptionId);
      if (!subscription || subscription.deletedAt) return 'skip';
      if (subscription.status === 'paused') throw hold('the subscription is paused', PAUSED_RECHECK_MS);
      const holder = campaignRun()?.workflowId ?? 'campaign';
      const markId = `resent:${delivery._id}`;
      if (limits.windowMs > 0) {
        const by = await store.expiring.holderOf(markId, now);
        if (by !== null && by !== holder) return 'skip';
      }
      const wait = await useHourlyQuota(store, delivery.integratorId, 'resends', limits.perHour, now.getTime());
      if (wait !== null) throw hold('the hourly re-send budget is spent', Math.min(wait * 1000, RECHECK_MS));
      if (limits.windowMs > 0) await store.expiring.mark(markId, holder, new Date(now.getTime() + limits.windowMs));
      return 'go';
    },
  };
}
