// A scripted stand-in for the delivery activities, for the workflow tests on the time-skipping server: the real
// workflow code, a fake receiver and fake records that answer as the real activities would — the attempt rule
// (src/domain/attempt-rule.ts) decides, as in the real activity.
import type { Activities } from '../../activities/index.js';
import { decideAttempt } from '../../src/domain/attempt-rule.js';
import type { AttemptOutcome, DeliveryStatus } from '../../src/domain/delivery-vocabulary.js';
import type { AttemptInput, AttemptResult } from '../../workflows/types.js';

export type Receiver = (attemptNumber: number) => AttemptOutcome | Promise<AttemptOutcome>;
export const alwaysFails: Receiver = () => 'http_error';
export function failsThenSucceeds(failures: number): Receiver {
  return (n) => (n > failures ? 'succeeded' : 'http_error');
}

/** One activity call: what the workflow asked, with the wait the attempt rule answered. */
export type Call = {
  deliveryId: string;
  attemptNumber: number;
  actor: string;
  followSchedule: boolean;
  retryInSeconds: number | null;
};

/** Whether failures follow the schedule; a workflow older than the attempt rule says it its own way. */
const followsSchedule = (input: AttemptInput): boolean =>
  'followSchedule' in input ? input.followSchedule : input.retryInSeconds !== null;

export function createFakeDeliveryActivities() {
  /** Per delivery: the scripted receiver (default: always fails). */
  const receivers = new Map<string, Receiver>();
  /** Per delivery: every attemptDelivery call, in order. */
  const calls = new Map<string, Call[]>();
  /** Per delivery, what the records would say: the last attempt number and the status it left. */
  const records = new Map<string, { attemptCount: number; status: DeliveryStatus }>();

  const activities: Pick<Activities, 'attemptDelivery' | 'prepareRerun'> = {
    async attemptDelivery(input: AttemptInput): Promise<AttemptResult> {
      const { deliveryId, attemptNumber: n, actor } = input;
      const followSchedule = followsSchedule(input);
      const outcome = await (receivers.get(deliveryId) ?? alwaysFails)(n);
      const statusCode = outcome === 'succeeded' ? 204 : outcome === 'http_error' ? 500 : null;
      // `held`: the subscription is paused (a workflow sending holdWhenPaused only): no request, nothing recorded.
      const verdict =
        outcome === 'held'
          ? { status: 'pending' as const, retryInSeconds: null }
          : outcome === 'cancelled' || outcome === 'signing_key_unavailable' || outcome === 'recording_failed'
            ? { status: outcome === 'cancelled' ? ('cancelled' as const) : ('failed' as const), retryInSeconds: null }
            : decideAttempt({ outcome, statusCode, headers: {}, attemptNumber: n, followSchedule });
      const call = { deliveryId, attemptNumber: n, actor, followSchedule, retryInSeconds: verdict.retryInSeconds };
      calls.set(deliveryId, [...(calls.get(deliveryId) ?? []), call]);
      if (outcome !== 'held') records.set(deliveryId, { attemptCount: n, status: verdict.status });
      const attemptId = outcome === 'cancelled' || outcome === 'held' ? null : `a-${n}`;
      const result = { attemptId, attemptNumber: n, outcome, statusCode, deliveryStatus: verdict.status };
      return { ...result, retryInSeconds: verdict.retryInSeconds };
    },
    async prepareRerun(deliveryId: string) {
      const record = records.get(deliveryId) ?? { attemptCount: 0, status: 'pending' };
      records.set(deliveryId, { ...record, status: 'pending' });
      return { firstAttemptNumber: record.attemptCount + 1, followSchedule: record.status === 'pending' };
    },
  };
  return { activities, receivers, calls, records };
}
