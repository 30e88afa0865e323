// How late each retry of a set of deliveries was against the retry schedule, counted from the previous attempt's
// answer as Herald recorded it (its signing time + its latency; a held request's answer is Herald's timeout). An
// attempt starts when the receiver saw it. Also counts the attempts Herald recorded beyond the requests the receiver
// saw (an attempt is a request: the goal is 0).
import type { Db } from 'mongodb';
import { RETRY_DELAYS_SECONDS } from '../../src/domain/retry-schedule.js';
import type { DeliveryDoc } from '../../src/store/documents.js';

export interface SlipReport {
  /** Lateness in ms of each retry that started at or after `from`. */
  readonly slipMs: number[];
  /** Attempts recorded beyond the requests the receiver saw for their delivery. */
  readonly unsent: number;
  /** Attempts recorded. */
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
  let unsent = 0;
  let attempts = 0;
  for (let i = 0; i < ids.length; i += 200) {
    const docs = await db
      .collection<DeliveryDoc>('deliveries')
      .find({ _id: { $in: ids.slice(i, i + 200) } })
      .toArray();
    for (const doc of docs) {
      const seen = [...(arrivals.get(doc._id) ?? [])];
      attempts += doc.attemptCount;
      unsent += Math.max(0, doc.attemptCount - seen.length);
      const list = Object.values(doc.attempts ?? {}).sort((x, y) => x.attemptNumber - y.attemptNumber);
      let previousAnswer: number | null = null;
      for (const attempt of list) {
        const started = seen.shift() ?? attempt.signedAt.getTime();
        const delay = RETRY_DELAYS_SECONDS[attempt.attemptNumber - 2];
        if (previousAnswer !== null && delay !== undefined && started >= from)
          slipMs.push(started - previousAnswer - delay * 1000);
        previousAnswer = attempt.signedAt.getTime() + attempt.latencyMs;
      }
    }
  }
  return { slipMs, unsent, attempts };
}
