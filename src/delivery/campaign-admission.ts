// Which campaigns may run: one per subscription and a few per integrator (HERALD_CAMPAIGNS_PER_INTEGRATOR), so a
// moved window cannot start another campaign beside the first (issue 32: a campaign's id derives from its window).
import type { Client } from '@temporalio/client';
import type { SubscriptionDoc } from '../store/documents.js';
import type { Store } from '../store/index.js';
import type { SlotClaim } from '../store/campaign-slots-repo.js';
import { useHourlyQuota } from '../store/hourly-quota.js';
import type { CampaignProgress } from '../../workflows/recovery-messages.js';
import { campaignIdOf, readCampaign, startCampaign, type CampaignRequest } from './recovery-campaign.js';

type Deps = {
  store: Store;
  client: Client;
  taskQueue: string;
  answerWithinMs: number;
  campaignsPerIntegrator: number;
  /** HERALD_CAMPAIGN_STARTS_PER_HOUR: campaigns an integrator may start per clock hour (an empty window counts). */
  startsPerHour: number;
};

export type CampaignOpening =
  | { ok: true; created: boolean; campaign: CampaignProgress }
  | { ok: false; reason: 'campaign_running'; heldBy: string }
  | { ok: false; reason: 'campaign_limit' }
  | { ok: false; reason: 'start_quota'; retryAfterSec: number };

/** A claim whose campaign is not found yet is taken as starting for this long (the start follows the claim). */
const STARTING_GRACE_MS = 60_000;

/**
 * Answers the campaign this window names if it exists (running or ended: 200 as before); otherwise claims the
 * subscription's slot and one of the integrator's, then starts the campaign. A refusal leaves nothing claimed.
 */
export async function openCampaign(
  deps: Deps,
  subscription: SubscriptionDoc,
  request: CampaignRequest,
  now = new Date(),
): Promise<CampaignOpening> {
  const { store, campaignsPerIntegrator } = deps;
  const integratorId = subscription.integratorId;
  const campaignId = campaignIdOf(subscription._id, request);
  const existing = await readCampaign(deps, integratorId, campaignId);
  if (existing) return { ok: true, created: false, campaign: existing };
  // Every start counts, one over an empty window too (it ends at once and frees its slot: without this bound campaign
  // workflows could be started without end). A refused start counts as well, as every hourly quota does.
  const wait = await useHourlyQuota(store, integratorId, 'campaign_starts', deps.startsPerHour, now.getTime());
  if (wait !== null) return { ok: false, reason: 'start_quota', retryAfterSec: wait };

  const stillHeld = async ({ campaignId: id, claimedAt }: SlotClaim): Promise<boolean> => {
    const campaign = await readCampaign(deps, integratorId, id);
    if (!campaign) return now.getTime() - claimedAt.getTime() < STARTING_GRACE_MS;
    return campaign.state === 'running' || campaign.state === 'paused';
  };
  const own = await store.campaignSlots.claim(`subscription:${subscription._id}`, campaignId, stillHeld, now);
  if (!own.ok) return { ok: false, reason: 'campaign_running', heldBy: own.heldBy };
  for (let k = 0; k < campaignsPerIntegrator; k++) {
    const shared = await store.campaignSlots.claim(`integrator:${integratorId}:${k}`, campaignId, stillHeld, now);
    if (!shared.ok) continue;
    try {
      return { ok: true, ...(await startCampaign(deps, subscription, request, now)) };
    } catch (err) {
      await Promise.all([shared.release(), own.release()]);
      throw err;
    }
  }
  await own.release();
  return { ok: false, reason: 'campaign_limit' };
}
