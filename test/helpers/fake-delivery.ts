// A scripted stand-in for the delivery activities, for the workflow tests on the time-skipping server: the real
// workflow code, a fake receiver and fake records that answer as the real activities would.
import type { Activities } from '../../activities/index.js';
import type { AttemptInput, AttemptOutcome, AttemptResult, DeliveryStatus } from '../../workflows/types.js';

export type Receiver = (attemptNumber: number) => AttemptOutcome | Promise<AttemptOutcome>;
export const alwaysFails: Receiver = () => 'http_error';
export function failsThenSucceeds(failures: number): Receiver {
  return (n) => (n > failures ? 'succeeded' : 'http_error');
}

export function createFakeDeliveryActivities() {
  /** Per delivery: the scripted receiver (default: always fails). */
  const receivers = new Map<string, Receiver>();
  /** Per delivery: every attemptDelivery input, in order. */
  const calls = new Map<string, AttemptInput[]>();
  /** Per delivery, what the records would say: the last attempt number and the status it left. */
  const records = new Map<string, { attemptCount: number; status: DeliveryStatus }>();

  const activities: Pick<Activities, 'attemptDelivery' | 'prepareRerun'> = {
    async attemptDelivery(input: AttemptInput): Promise<AttemptResult> {
      calls.set(input.deliveryId, [...(calls.get(input.deliveryId) ?? []), input]);
      const outcome = await (receivers.get(input.deliveryId) ?? alwaysFails)(input.attemptNumber);
      const statusCode = outcome === 'succeeded' ? 204 : outcome === 'http_error' ? 500 : null;
      const settled = outcome === 'succeeded' || outcome === 'cancelled';
      const deliveryStatus = settled ? outcome : input.retryInSeconds === null ? 'failed' : 'pending';
      const n = input.attemptNumber;
      records.set(input.deliveryId, { attemptCount: n, status: deliveryStatus });
      return { attemptId: `a-${n}`, attemptNumber: n, outcome, statusCode, deliveryStatus };
    },
    async prepareRerun(deliveryId: string) {
      const record = records.get(deliveryId) ?? { attemptCount: 0, status: 'pending' };
      records.set(deliveryId, { ...record, status: 'pending' });
      return { firstAttemptNumber: record.attemptCount + 1, followSchedule: record.status === 'pending' };
    },
  };
  return { activities, receivers, calls, records };
}
