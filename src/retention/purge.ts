// The retention purge (docs/retention.md): what Herald keeps no longer than HERALD_RETENTION, deleted in bounded
// batches by `_id` with a pause between them, walking each integrator's deliveries and events oldest first.
import type { Store } from '../store/index.js';
import { campaignFloors, type CampaignStateOf } from './campaign-floors.js';
import { purgeIntegrator } from './purge-integrator.js';
import type { ItemCounts } from './purge-items.js';
import { purgeSubscriptions } from './purge-subscriptions.js';

export interface RetentionPolicy {
  /** How long what has ended is kept (HERALD_RETENTION), in ms. */
  retentionMs: number;
  /** Rows one batch examines (HERALD_RETENTION_BATCH). */
  batch: number;
  /** The least pause after each batch (HERALD_RETENTION_PAUSE_MS). */
  pauseMs: number;
  /** The share of time the purge works (HERALD_RETENTION_DUTY): the rest it leaves to deliveries. */
  duty: number;
  /** How long one call works before answering with `more` (its caller calls again). */
  budgetMs: number;
}

/** HERALD_RETENTION's defaults (src/config.ts), and a minute's work per call. */
export const defaultRetentionPolicy: RetentionPolicy = {
  retentionMs: 30 * 86_400_000,
  batch: 500,
  pauseMs: 200,
  duty: 0.25,
  budgetMs: 60_000,
};

/** The policy a configuration sets. */
export const retentionPolicyOf = (config: {
  HERALD_RETENTION: number;
  HERALD_RETENTION_BATCH: number;
  HERALD_RETENTION_PAUSE_MS: number;
  HERALD_RETENTION_DUTY: number;
}): RetentionPolicy => ({
  ...defaultRetentionPolicy,
  retentionMs: config.HERALD_RETENTION,
  batch: config.HERALD_RETENTION_BATCH,
  pauseMs: config.HERALD_RETENTION_PAUSE_MS,
  duty: config.HERALD_RETENTION_DUTY,
});

export interface PurgeReport {
  /** Everything that ended before this moment was due (ISO). */
  cutoff: string;
  deliveries: number;
  attempts: number;
  events: number;
  subscriptions: number;
  signingKeys: number;
  campaigns: number;
  batches: number;
  /** The call ran out of its budget before it was done: call again. */
  more: boolean;
}

export interface PurgeDeps {
  store: Store;
  /** A campaign's state as its workflow answers it (a recorded `running` may be stale); the recorded one without. */
  campaignState?: CampaignStateOf;
  now?: () => Date;
  /** Called after each batch (an activity's heartbeat). */
  progress?: () => void;
}

/**
 * One pass over every integrator: its deliveries that ended before the cutoff (with their attempts and listing rows),
 * then its events that are older and that no stored delivery names, then deleted subscriptions with their keys and
 * ended campaigns' progress. A running campaign's window is kept whole: its integrator's cutoff moves back to the
 * window's start. Idempotent and resumable: a run that stops anywhere leaves what the next run finds again.
 */
export async function purgeExpired(deps: PurgeDeps, policy: RetentionPolicy): Promise<PurgeReport> {
  const { store } = deps;
  const now = deps.now?.() ?? new Date();
  const cutoff = new Date(now.getTime() - policy.retentionMs);
  const deadline = Date.now() + policy.budgetMs;
  const report: PurgeReport = {
    cutoff: cutoff.toISOString(),
    deliveries: 0,
    attempts: 0,
    events: 0,
    subscriptions: 0,
    signingKeys: 0,
    campaigns: 0,
    batches: 0,
    more: false,
  };
  const add = (c: ItemCounts) => {
    report.deliveries += c.deliveries;
    report.attempts += c.attempts;
    report.events += c.events;
    report.batches += 1;
    deps.progress?.();
  };
  const { floors, ended } = await campaignFloors(store.db, cutoff, deps.campaignState);
  report.campaigns = ended;

  const pace = { batch: policy.batch, pauseMs: policy.pauseMs, duty: policy.duty, deadline };
  const integrators = await store.db
    .collection<{ _id: string }>('integrators')
    .find({}, { projection: { _id: 1 } })
    .map((d) => d._id)
    .toArray();
  for (const integratorId of integrators) {
    const floor = floors.get(integratorId);
    const rule = { cutoff: floor && floor < cutoff ? floor : cutoff };
    if (!(await purgeIntegrator(store, integratorId, rule, pace, add))) return { ...report, more: true };
  }
  const subscriptions = await purgeSubscriptions(store.db, cutoff, policy.batch, deadline);
  return { ...report, ...subscriptions };
}
