import type { Db } from 'mongodb';
import type { CampaignProgressDoc } from '../store/campaign-progress-repo.js';
import { campaignWorkflowId, type CampaignState } from '../../workflows/recovery-messages.js';

/** A campaign's state as its workflow answers it, by workflow id. */
export type CampaignStateOf = (workflowId: string) => Promise<CampaignState>;

const LIVE: ReadonlySet<CampaignState> = new Set(['running', 'paused']);

/**
 * Per integrator, the start of its oldest live campaign's window (nothing there is purged while the campaign may
 * still re-deliver it), and the progress records of ended campaigns last written before `cutoff`, deleted. The
 * recorded state of a campaign that says it is live is checked with its workflow when `stateOf` is given: a
 * campaign's last record says `running`, since its end is read from its workflow (src/delivery/recovery-campaign.ts).
 */
export async function campaignFloors(
  db: Db,
  cutoff: Date,
  stateOf?: CampaignStateOf,
): Promise<{ floors: Map<string, Date>; ended: number }> {
  const progress = db.collection<CampaignProgressDoc>('campaign_progress');
  // One document per campaign, and ended ones leave after the retention: a small collection, read whole.
  const docs = await progress
    .find({}, { projection: { integratorId: 1, window: 1, state: 1, updatedAt: 1 } })
    .toArray();
  const floors = new Map<string, Date>();
  const stale: string[] = [];
  for (const d of docs) {
    const live =
      LIVE.has(d.state) && (!stateOf || LIVE.has(await stateOf(campaignWorkflowId(d._id)).catch(() => d.state)));
    if (live) {
      const since = new Date(d.window.since);
      const floor = floors.get(d.integratorId);
      if (!floor || since < floor) floors.set(d.integratorId, since);
    } else if (d.updatedAt < cutoff) stale.push(d._id);
  }
  if (stale.length > 0) await progress.deleteMany({ _id: { $in: stale } });
  return { floors, ended: stale.length };
}
