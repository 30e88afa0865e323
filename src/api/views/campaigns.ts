import type { CampaignProgress } from '../../../workflows/recovery-messages.js';
import type { RecoveryCampaign } from '../schemas/campaigns.js';

export const campaignView = (p: CampaignProgress): RecoveryCampaign => ({
  id: p.campaignId,
  subscriptionId: p.window.subscriptionId,
  since: p.window.since,
  until: p.window.until,
  statuses: p.window.statuses.filter((s) => s === 'failed' || s === 'cancelled'),
  ratePerSecond: p.ratePerSecond,
  state: p.state,
  total: p.total,
  requested: p.requested,
  succeeded: p.succeeded,
  failed: p.failed,
  skipped: p.skipped,
  done: p.succeeded + p.failed + p.skipped,
});
