// The recovery campaign's contract: its workflow id, input, progress, and the updates and query the API sends.
// Defined once here; the API imports these same constants (src/delivery/recovery-campaign.ts).
import { defineQuery, defineUpdate } from '@temporalio/workflow';
import type { CandidatePosition, RecoveryWindow } from '../src/store/recovery-candidates.js';

/** A campaign's workflow id: its id is derived from the subscription and the window (one campaign per window). */
export function campaignWorkflowId(campaignId: string): string {
  return `recovery:${campaignId}`;
}

export const campaignStates = ['running', 'paused', 'cancelled', 'completed'] as const;
export type CampaignState = (typeof campaignStates)[number];

/** A re-delivery asked for whose attempt has not been read yet. */
export interface AwaitedAttempt {
  readonly deliveryId: string;
  readonly attemptNumber: number;
}

export interface CampaignInput {
  readonly campaignId: string;
  readonly integratorId: string;
  readonly window: RecoveryWindow;
  /** Re-deliveries asked for per second (> 0). */
  readonly ratePerSecond: number;
  /** Continue-as-new once the history has this many events (at a page boundary); default 2,000. */
  readonly maxHistoryEvents?: number;
  /** Carried over by continue-as-new. */
  readonly carried?: { progress: CampaignCounts; position: CandidatePosition; awaited: AwaitedAttempt[] };
}

export interface CampaignCounts {
  readonly state: CampaignState;
  /** Candidates in the window when the campaign started. */
  readonly total: number;
  /** Re-deliveries asked for so far. */
  readonly requested: number;
  /** Of those, attempts that succeeded / did not succeed; skipped: no attempt was made (deleted subscription, …). */
  readonly succeeded: number;
  readonly failed: number;
  readonly skipped: number;
}

/** What the query, the updates and the workflow's result answer. */
export type CampaignProgress = CampaignCounts &
  Pick<CampaignInput, 'campaignId' | 'integratorId' | 'window' | 'ratePerSecond'>;

/** ApplicationFailure type of a pause/resume refused because the campaign was cancelled. */
export const CAMPAIGN_CANCELLED = 'CampaignCancelled';

export const campaignProgressQuery = defineQuery<CampaignProgress>('campaignProgress');
/** Stop asking for re-deliveries until resumed (those asked for still finish); idempotent. */
export const pauseCampaignUpdate = defineUpdate<CampaignProgress, []>('pauseCampaign');
export const resumeCampaignUpdate = defineUpdate<CampaignProgress, []>('resumeCampaign');
/** Ask for no more re-deliveries; the campaign ends once those asked for have been read. Idempotent. */
export const cancelCampaignUpdate = defineUpdate<CampaignProgress, []>('cancelCampaign');
