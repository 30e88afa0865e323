// The retention purge's run (docs/retention.md): started by the `herald-retention` Schedule
// (src/temporal/retention-schedule.ts), it calls the purge activity until a call answers that nothing expired is
// left, each call working a bounded time in batches with a pause between them. A backlog larger than one run's calls
// is left to the next run: the history stays small.
import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities/index.js';
import type { PurgeReport } from '../src/retention/purge.js';

/** Calls of the purge activity per run (each works about a minute). */
export const PURGE_CALLS_PER_RUN = 50;

const { purgeExpired } = proxyActivities<Activities>({
  startToCloseTimeout: '10 minutes',
  heartbeatTimeout: '2 minutes',
  retry: { initialInterval: '5s', backoffCoefficient: 2, maximumInterval: '2 minutes', maximumAttempts: 10 },
});

/** What a run purged: the counts of its calls added up, `cutoff` the last call's, `more` when it stopped early. */
export type RetentionTotals = PurgeReport & { calls: number };

const COUNTS = ['deliveries', 'attempts', 'events', 'subscriptions', 'signingKeys', 'campaigns', 'batches'] as const;

export async function retentionWorkflow(): Promise<RetentionTotals> {
  let total: RetentionTotals | undefined;
  for (let calls = 1; calls <= PURGE_CALLS_PER_RUN; calls++) {
    const r = await purgeExpired();
    const sum = { ...r, calls };
    for (const k of COUNTS) sum[k] += total?.[k] ?? 0;
    total = sum;
    if (!r.more) break;
  }
  return total!;
}
