// The recovery campaign's activities: list its candidates page by page (the list stays out of the workflow's
// history beyond one page), ask for one re-delivery through the manual retry path, read the attempts it made.
import { setTimeout as sleep } from 'node:timers/promises';
import { ApplicationFailure } from '@temporalio/activity';
import { configSchema } from '../src/config.js';
import type { Store } from '../src/store/index.js';
import type { Candidate, CandidatePosition, RecoveryWindow } from '../src/store/recovery-candidates.js';
import type { AwaitedAttempt, CampaignProgress } from '../workflows/recovery-messages.js';
import type { DeliveryPort } from './delivery-port.js';
import { createRedeliveryGate, resendLimitsOf, type ResendLimits } from './redelivery-gate.js';

export interface RecoveryDeps {
  readonly store: Store;
  /** The delivery service: a re-delivery is a manual retry (an update-with-start of the delivery's workflow). */
  readonly delivery?: DeliveryPort;
  /** The re-send budget and window (src/config.ts); default: the config's defaults. */
  readonly resendLimits?: ResendLimits;
}

/** A re-delivery asked for (the attempt that serves it), or none to make. */
export type RedeliveryRequest = AwaitedAttempt | { readonly deliveryId: string; readonly skipped: true };

export type AttemptVerdict = 'succeeded' | 'failed' | 'skipped' | 'waiting';

export function createRecoveryActivities(deps: RecoveryDeps) {
  const { deliveries, deliveryReports: reports } = deps.store;
  const { delivery } = deps;
  const gate = createRedeliveryGate({
    store: deps.store,
    campaignState: delivery ? (workflowId) => delivery.campaignState(workflowId) : null,
    limits: deps.resendLimits ?? resendLimitsOf(configSchema.parse({})),
  });
  return {
    async countRecoveryCandidates(window: RecoveryWindow): Promise<number> {
      return await reports.countCandidates(window);
    },

    async listRecoveryCandidates(
      window: RecoveryWindow,
      position: CandidatePosition | null,
      limit: number,
    ): Promise<{ items: Candidate[]; next: CandidatePosition | null }> {
      return await reports.candidatePage(window, position, limit);
    },

    /**
     * Asks each delivery's workflow for one more attempt (src/delivery/manual-retry.ts: update-with-start, so it
     * never races a run), the i-th request started `i × spacingMs` after the first: the campaign's pace within one
     * of its ticks (Temporal timers fire on whole seconds). A delivery that had an attempt since it was listed (a
     * retried activity, a manual retry) is not asked again: that attempt answers for it. Each must pass the gate
     * (./redelivery-gate.ts); a held one fails the batch once the others are asked for, and the retry resumes it.
     */
    async requestRedeliveries(
      candidates: Candidate[],
      spacingMs: number,
      progress?: CampaignProgress,
    ): Promise<RedeliveryRequest[]> {
      if (!delivery) throw ApplicationFailure.nonRetryable('no delivery service', 'RecoveryNotConfigured');
      if (progress) await deps.store.campaignProgress.recordCounts(progress);
      if (await gate.cancelled()) return candidates.map((c) => ({ deliveryId: c.id, skipped: true }));
      const one = async (candidate: Candidate): Promise<RedeliveryRequest> => {
        const found = await deliveries.findById(candidate.id);
        if (!found) return { deliveryId: candidate.id, skipped: true };
        if (found.attemptCount > candidate.attemptCount)
          return { deliveryId: candidate.id, attemptNumber: candidate.attemptCount + 1 };
        if ((await gate.admit(found)) === 'skip') return { deliveryId: candidate.id, skipped: true };
        const verdict = await delivery.retry(found);
        if (verdict.ok) return { deliveryId: candidate.id, attemptNumber: verdict.attemptNumber };
        if (verdict.reason === 'delivery_busy') throw new Error(`delivery ${candidate.id} is busy; trying again`);
        return { deliveryId: candidate.id, skipped: true };
      };
      const settled = await Promise.allSettled(
        candidates.map(async (candidate, i) => {
          if (i > 0) await sleep(i * spacingMs);
          return await one(candidate);
        }),
      );
      const failed = settled.find((r) => r.status === 'rejected');
      if (failed) throw failed.reason;
      return settled.map((r) => (r as PromiseFulfilledResult<RedeliveryRequest>).value);
    },

    /**
     * What became of each awaited attempt, read by `_id`: its outcome once recorded; skipped when the delivery ended
     * without making it (cancelled meanwhile); waiting while its run may still make it.
     */
    async readRedeliveries(awaited: AwaitedAttempt[], progress?: CampaignProgress): Promise<AttemptVerdict[]> {
      if (progress) await deps.store.campaignProgress.recordCounts(progress);
      return await Promise.all(
        awaited.map(async ({ deliveryId, attemptNumber }) => {
          const delivery = await deliveries.findById(deliveryId);
          // Read late, after more attempts than its document keeps, the attempt has moved to `attempts`.
          const moved =
            delivery && !delivery.attempts?.[String(attemptNumber)] && delivery.attemptCount >= attemptNumber;
          const attempt = moved
            ? (await deps.store.attempts.find(deliveryId, [attemptNumber]))[0]
            : delivery?.attempts?.[String(attemptNumber)];
          if (attempt) return attempt.outcome === 'succeeded' ? 'succeeded' : 'failed';
          return delivery?.status === 'pending' ? 'waiting' : 'skipped';
        }),
      );
    },
  };
}
