// The one rule that says what an attempt means for its delivery. Pure and deterministic: the activity applies it to
// what the receiver answered, the workflow follows its verdict, the tests' fake receiver uses it too.
// Receiver signals (docs/deliveries.md, "Receiver signals"): Retry-After on 429/503 lengthens the scheduled wait up
// to a cap, never shortens it; 410 Gone pauses the subscription (the delivery follows its schedule and is held).
import type { DeliveryStatus, PostOutcome, TerminalReason } from './delivery-vocabulary.js';
import { retryDelayAfter } from './retry-schedule.js';

/** Default cap on a Retry-After wait (HERALD_RETRY_AFTER_MAX_SECONDS): the schedule's longest step, 6 h. */
export const DEFAULT_RETRY_AFTER_MAX_SECONDS = 21_600;

/** Status codes whose Retry-After is honoured (RFC 9110 §10.2.3 names 503 and 3xx; RFC 6585 adds 429). */
const RETRY_AFTER_STATUSES: ReadonlySet<number> = new Set([429, 503]);

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
  /** When the answer came (ms since the epoch): an HTTP-date Retry-After is counted from it. Default: 0 (none). */
  readonly answeredAtMs?: number;
  /** The longest wait a Retry-After may ask for (default DEFAULT_RETRY_AFTER_MAX_SECONDS). */
  readonly retryAfterMaxSeconds?: number;
}

/** Why an attempt pauses its subscription. */
export type PauseSignal = 'endpoint_gone';

export interface AttemptVerdict {
  readonly status: DeliveryStatus;
  /** Seconds to wait before the next attempt; null unless the status stays pending. */
  readonly retryInSeconds: number | null;
  readonly terminalReason: TerminalReason | null;
  /** The wait the receiver asked for with Retry-After (429/503 only, parsed, ≥ 0); absent when it asked none. */
  readonly retryAfterSeconds?: number;
  /** Present when the answer pauses the subscription (410 Gone). */
  readonly pause?: PauseSignal;
}

/**
 * Seconds asked by a Retry-After value: a non-negative integer, or an HTTP-date counted from `answeredAtMs` (a date
 * in the past asks 0). null when the value is neither.
 */
export function parseRetryAfter(value: string | undefined, answeredAtMs: number): number | null {
  if (value === undefined) return null;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number.parseInt(text, 10);
  // Every HTTP-date form (RFC 9110 §5.6.7) starts with the day's name; Date.parse alone takes shapes like "1.5".
  if (!/^(Mon|Tue|Wed|Thu|Fri|Sat|Sun)/.test(text)) return null;
  const at = Date.parse(text);
  if (Number.isNaN(at)) return null;
  return Math.max(0, Math.ceil((at - answeredAtMs) / 1000));
}

export function decideAttempt(facts: AttemptFacts): AttemptVerdict {
  if (facts.outcome === 'succeeded') return { status: 'succeeded', retryInSeconds: null, terminalReason: null };
  const pause = facts.statusCode === 410 ? { pause: 'endpoint_gone' as const } : {};
  const asked =
    facts.statusCode !== null && RETRY_AFTER_STATUSES.has(facts.statusCode)
      ? parseRetryAfter(facts.headers['retry-after'], facts.answeredAtMs ?? 0)
      : null;
  const signals = { ...pause, ...(asked === null ? {} : { retryAfterSeconds: asked }) };
  const scheduled = facts.followSchedule ? retryDelayAfter(facts.attemptNumber) : null;
  if (scheduled === null)
    return { status: 'failed', retryInSeconds: null, terminalReason: 'retries_exhausted', ...signals };
  // Never sooner than the schedule, never past the cap (nor past a schedule step longer than the cap).
  const cap = Math.max(scheduled, facts.retryAfterMaxSeconds ?? DEFAULT_RETRY_AFTER_MAX_SECONDS);
  const retryInSeconds = asked === null ? scheduled : Math.min(cap, Math.max(scheduled, asked));
  return { status: 'pending', retryInSeconds, terminalReason: null, ...signals };
}
