// A scripted stand-in for the delivery activities, for the workflow tests on the time-skipping server: the real
// workflow code, a fake receiver and fake records that answer as the real activities would — the attempt rule
// (src/domain/attempt-rule.ts) decides, as in the real activity.
import type { Activities } from '../../activities/index.js';
import { decideAttempt } from '../../src/domain/attempt-rule.js';
import type { AttemptOutcome, DeliveryStatus, GateWaitReason } from '../../src/domain/delivery-vocabulary.js';
import { randomUUID } from 'node:crypto';
import { deliveryStartOptions } from '../../src/delivery/start-delivery.js';
import type {
  AttemptInput,
  AttemptResult,
  AttemptStep,
  DeliveryWorkflowInput,
  StepInput,
} from '../../workflows/types.js';

/** A capacity guard turns the attempt away (runs with patch attempt-steps): nothing sent, wait `ms`. */
export interface ScriptedWait {
  readonly wait: GateWaitReason;
  readonly ms: number;
}
export type Receiver = (
  attemptNumber: number,
) => AttemptOutcome | ScriptedWait | Promise<AttemptOutcome | ScriptedWait>;
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
  /** Set when the call was turned away (or held): the attempt waits, its number unused. */
  waited?: string;
};

/** Whether failures follow the schedule; a workflow older than the attempt rule says it its own way. */
const followsSchedule = (input: AttemptInput | StepInput): boolean =>
  'followSchedule' in input ? input.followSchedule : input.retryInSeconds !== null;

export function createFakeDeliveryActivities() {
  /** Per delivery: the scripted receiver (default: always fails). */
  const receivers = new Map<string, Receiver>();
  /** Per delivery: every attempt call (attemptDelivery or runAttempt), in order. */
  const calls = new Map<string, Call[]>();
  /** Per delivery, what the records would say: the last attempt number and the status it left. */
  const records = new Map<string, { attemptCount: number; status: DeliveryStatus }>();

  async function attempt(input: AttemptInput | StepInput): Promise<AttemptResult | ScriptedWait> {
    const { deliveryId, attemptNumber: n, actor } = input;
    const followSchedule = followsSchedule(input);
    const answer = await (receivers.get(deliveryId) ?? alwaysFails)(n);
    if (typeof answer === 'object') {
      const call = { deliveryId, attemptNumber: n, actor, followSchedule, retryInSeconds: null, waited: answer.wait };
      calls.set(deliveryId, [...(calls.get(deliveryId) ?? []), call]);
      return answer;
    }
    return settle(input, answer);
  }

  function settle(input: AttemptInput | StepInput, outcome: AttemptOutcome): AttemptResult {
    const { deliveryId, attemptNumber: n, actor } = input;
    const followSchedule = followsSchedule(input);
    const statusCode = outcome === 'succeeded' ? 204 : outcome === 'http_error' ? 500 : null;
    // `held`: the subscription is paused (a workflow sending holdWhenPaused only): no request, nothing recorded.
    const verdict =
      outcome === 'held'
        ? { status: 'pending' as const, retryInSeconds: null }
        : outcome === 'cancelled' || outcome === 'signing_key_unavailable' || outcome === 'recording_failed'
          ? { status: outcome === 'cancelled' ? ('cancelled' as const) : ('failed' as const), retryInSeconds: null }
          : decideAttempt({ outcome, statusCode, headers: {}, attemptNumber: n, followSchedule });
    const call = {
      deliveryId,
      attemptNumber: n,
      actor,
      followSchedule,
      retryInSeconds: verdict.retryInSeconds,
    };
    calls.set(deliveryId, [...(calls.get(deliveryId) ?? []), call]);
    if (outcome !== 'held') records.set(deliveryId, { attemptCount: n, status: verdict.status });
    const attemptId = outcome === 'cancelled' || outcome === 'held' ? null : `a-${n}`;
    const result = { attemptId, attemptNumber: n, outcome, statusCode, deliveryStatus: verdict.status };
    return { ...result, retryInSeconds: verdict.retryInSeconds };
  }

  const activities: Pick<Activities, 'attemptDelivery' | 'runAttempt' | 'prepareRerun'> = {
    async attemptDelivery(input: AttemptInput): Promise<AttemptResult> {
      const answer = await attempt(input);
      if ('wait' in answer) throw new Error('a run older than patch attempt-steps cannot be turned away');
      return answer;
    },
    async runAttempt(input: StepInput): Promise<AttemptStep> {
      const answer = await attempt(input);
      if ('wait' in answer) return { step: 'wait', reason: answer.wait, waitMs: answer.ms };
      if (answer.outcome === 'held') return { step: 'wait', reason: 'subscription_paused', waitMs: null };
      return { step: answer.attemptId === null ? 'end' : 'sent', result: answer };
    },
    async prepareRerun(deliveryId: string) {
      const record = records.get(deliveryId) ?? { attemptCount: 0, status: 'pending' };
      records.set(deliveryId, { ...record, status: 'pending' });
      return { firstAttemptNumber: record.attemptCount + 1, followSchedule: record.status === 'pending' };
    },
  };
  return { activities, receivers, calls, records };
}

/** A new delivery's workflow input: attempt 1, on the schedule. */
export const newDeliveryInput = (): DeliveryWorkflowInput => ({
  deliveryId: randomUUID(),
  firstAttemptNumber: 1,
  actor: 'system',
  followSchedule: true,
});

/** Start options of a fake delivery (one subscription, one integrator) on `taskQueue`. */
export const fakeStartOptions = (taskQueue: string, input: DeliveryWorkflowInput) =>
  deliveryStartOptions(
    {
      _id: input.deliveryId,
      subscriptionId: 'sub-1',
      eventType: 'customer.created',
      integratorId: 'int-1',
      attemptCount: 0,
    },
    taskQueue,
    input,
  );
