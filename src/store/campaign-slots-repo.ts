import type { Db } from 'mongodb';
import { isDuplicateKey } from './duplicate-key.js';

/**
 * One claim of a slot (`_id` = `<scope>#<generation>`): the campaign that holds it. A scope's pointer document
 * (`_id` = the scope) names its latest generation, a hint that keeps the walk to the free one short.
 */
export interface CampaignSlotDoc {
  _id: string;
  campaignId?: string;
  claimedAt?: Date;
  /** Pointer documents only. */
  generation?: number;
}

export type SlotClaim = { readonly campaignId: string; readonly claimedAt: Date };
/** Whether the campaign of a claim still holds its slot (running or paused; just claimed, not started yet). */
export type StillHeld = (claim: SlotClaim) => Promise<boolean>;
export type SlotVerdict = { ok: true; release: () => Promise<void> } | { ok: false; heldBy: string };

const noop = async () => {};

/**
 * Slots for running campaigns: one scope per subscription (one campaign at a time), a few per integrator. Every
 * read and write is by `_id`, and the unique `_id` of an insert decides a race: a claim never changes, a slot whose
 * campaign has ended is left for the next generation's claim (no compare-and-set, no transaction).
 */
export function createCampaignSlotsRepo(db: Db) {
  const slots = db.collection<CampaignSlotDoc>('campaign_slots');

  return {
    /**
     * Claims the scope's slot for `campaignId`, or answers the campaign that holds it. A claim by the same campaign
     * answers ok (with nothing to release: it is the other request's).
     */
    async claim(scope: string, campaignId: string, stillHeld: StillHeld, now = new Date()): Promise<SlotVerdict> {
      let generation = (await slots.findOne({ _id: scope }))?.generation ?? 0;
      for (;;) {
        const _id = `${scope}#${generation}`;
        const inserted = await slots.insertOne({ _id, campaignId, claimedAt: now }).then(
          () => true,
          (err: unknown) => {
            if (isDuplicateKey(err)) return false;
            throw err;
          },
        );
        if (inserted) {
          await slots.updateOne({ _id: scope }, { $max: { generation } }, { upsert: true }).catch((err: unknown) => {
            if (!isDuplicateKey(err)) throw err; // a racing first pointer: either one is a fine hint
          });
          return { ok: true, release: async () => void (await slots.deleteOne({ _id })) };
        }
        const holder = await slots.findOne({ _id });
        if (!holder?.campaignId || !holder.claimedAt) continue; // released meanwhile: claim it again
        if (holder.campaignId === campaignId) return { ok: true, release: noop };
        if (await stillHeld({ campaignId: holder.campaignId, claimedAt: holder.claimedAt }))
          return { ok: false, heldBy: holder.campaignId };
        generation += 1;
      }
    },
  };
}

export type CampaignSlotsRepo = ReturnType<typeof createCampaignSlotsRepo>;
