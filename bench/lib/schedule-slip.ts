// How late each retry of a set of deliveries was against the retry schedule, counted from the previous attempt's
// answer as Herald recorded it (its signing time + its latency; a held request's answer is Herald's timeout, an
// attempt the endpoint breaker held back answers at once). A sent attempt starts when the receiver saw it; one that was
// not sent (`endpoint_unresponsive`) when Herald signed it.
import type { Db } from 'mongodb';
import { RETRY_DELAYS_SECONDS } from '../../src/domain/retry-schedule.js';
import type { DeliveryDoc } from '../../src/store/documents.js';

export interface SlipReport {
  /** Lateness in ms of each retry that started at or after `from`. */
  readonly slipMs: number[];
  /** Attempts the breaker answered without a request, of all attempts recorded. */
  readonly heldBack: number;
  readonly attempts: number;
}

export async function scheduleSlip(
  db: Db,
  /** delivery id → the receiver's arrival times of its requests, in order */
  arrivals: Map<string, number[]>,
  from: number,
): Promise<SlipReport> {
  const ids = [...arrivals.keys()];
  const slipMs: number[] = [];
  let heldBack = 0;
  let attempts = 0;
  for (let i = 0; i < ids.length; i += 200) {
    const docs = await db
      .collection<DeliveryDoc>('deliveries')
      .find({ _id: { $in: ids.slice(i, i + 200) } })
      .toArray();
    for (const doc of docs) {
      const seen = [...(arrivals.get(doc._id) ?? [])];
      const list = Object.values(doc.attempts ?? {}).sort((x, y) => x.attemptNumber - y.attemptNumber);
      let previousAnswer: number | null = null;
      for (const attempt of list) {
        attempts += 1;
        const sent = attempt.outcome !== 'endpoint_unresponsive';
        if (!sent) heldBack += 1;
        const started = sent ? (seen.shift() ?? attempt.signedAt.getTime()) : attempt.signedAt.getTime();
        const delay = RETRY_DELAYS_SECONDS[attempt.attemptNumber - 2];
        if (previousAnswer !== null && delay !== undefined && started >= from)
          slipMs.push(started - previousAnswer - delay * 1000);
        previousAnswer = attempt.signedAt.getTime() + attempt.latencyMs;
      }
    }
  }
  return { slipMs, heldBack, attempts };
}
