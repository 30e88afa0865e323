// The one rule that says what an attempt means for its delivery. Pure and deterministic: the activity applies it to
// what the receiver answered, the workflow follows its verdict, the tests' fake receiver uses it too.
// Where the next rules go: honour Retry-After (from `headers`), end on 410 Gone (from `statusCode`).
import type { DeliveryStatus, PostOutcome, TerminalReason } from './delivery-vocabulary.js';
import { retryDelayAfter } from './retry-schedule.js';

export interface AttemptFacts {
  readonly outcome: PostOutcome;
  /** The receiver's status code; null when no answer came. */
  readonly statusCode: number | null;
  /** The kept response headers (lower-case names); empty when no answer came. */
  readonly headers: Readonly<Record<string, string>>;
  /** 1-based, counted over the delivery's whole life (manual re-runs continue the count). */
  readonly attemptNumber: number;
  /** false for a run that makes one attempt only (a manual re-run of a terminal delivery). */
  readonly followSchedule: boolean;
}

export interface AttemptVerdict {
  readonly status: DeliveryStatus;
  /** Seconds to wait before the next attempt; null unless the status stays pending. */
  readonly retryInSeconds: number | null;
  readonly terminalReason: TerminalReason | null;
}

export function decideAttempt(facts: AttemptFacts): AttemptVerdict {
  if (facts.outcome === 'succeeded') return { status: 'succeeded', retryInSeconds: null, terminalReason: null };
  const retryInSeconds = facts.followSchedule ? retryDelayAfter(facts.attemptNumber) : null;
  if (retryInSeconds === null) return { status: 'failed', retryInSeconds: null, terminalReason: 'retries_exhausted' };
  return { status: 'pending', retryInSeconds, terminalReason: null };
}
