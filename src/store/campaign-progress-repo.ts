import type { Db } from 'mongodb';
import type { CampaignProgress } from '../../workflows/recovery-messages.js';

/** A campaign's progress as last recorded (`_id` = the campaign id). */
export type CampaignProgressDoc = CampaignProgress & { _id: string; updatedAt: Date };

/**
 * Running campaigns' progress, read by the API without asking a worker (docs/deliveries.md, "Recovery campaigns").
 * The campaign's activities record its counts as they run (each call carries the counts of the calls before it); the
 * API records the state each start, pause, resume and cancel answers, so a paused campaign, which calls nothing, still
 * reads as paused. A campaign that has ended is read from its workflow's result instead. By `_id` only.
 */
export function createCampaignProgressRepo(db: Db) {
  const progress = db.collection<CampaignProgressDoc>('campaign_progress');
  const counted = (p: CampaignProgress) => ({
    campaignId: p.campaignId,
    integratorId: p.integratorId,
    window: p.window,
    ratePerSecond: p.ratePerSecond,
    total: p.total,
    requested: p.requested,
    succeeded: p.succeeded,
    failed: p.failed,
    skipped: p.skipped,
  });
  return {
    /** The counts the campaign's workflow passed to an activity; its state is left as the API recorded it. */
    async recordCounts(p: CampaignProgress, at = new Date()): Promise<void> {
      await progress.updateOne(
        { _id: p.campaignId },
        { $set: { ...counted(p), updatedAt: at }, $setOnInsert: { state: p.state } },
        { upsert: true },
      );
    },
    /** The whole progress a start or a control answered, its state included. */
    async recordState(p: CampaignProgress, at = new Date()): Promise<void> {
      await progress.updateOne(
        { _id: p.campaignId },
        { $set: { ...counted(p), state: p.state, updatedAt: at } },
        { upsert: true },
      );
    },
    async find(campaignId: string): Promise<CampaignProgress | null> {
      const doc = await progress.findOne({ _id: campaignId });
      if (!doc) return null;
      const { _id: _, updatedAt: __, ...rest } = doc;
      return rest;
    },
  };
}
