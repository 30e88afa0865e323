// The retry schedule of spec §6.6 as data. Attempt numbers are 1-based; attempt 1 is made at once.

/** Seconds to wait after the 1st, 2nd, … 6th failed attempt before the next one. */
export const RETRY_DELAYS_SECONDS = [30, 60, 300, 1800, 7200, 21600] as const;

/** The first attempt plus one retry per delay. */
export const MAX_ATTEMPTS = RETRY_DELAYS_SECONDS.length + 1;

/** Seconds to wait after attempt `attemptNumber` fails; null when no scheduled attempt follows (after the 7th). */
export function retryDelayAfter(attemptNumber: number): number | null {
  if (!Number.isInteger(attemptNumber) || attemptNumber < 1) return null;
  return RETRY_DELAYS_SECONDS[attemptNumber - 1] ?? null;
}

/** Seconds from the first attempt to attempt `attemptNumber` when every attempt fails and nobody intervenes. */
export function attemptOffsetSeconds(attemptNumber: number): number | null {
  if (!Number.isInteger(attemptNumber) || attemptNumber < 1 || attemptNumber > MAX_ATTEMPTS) return null;
  return RETRY_DELAYS_SECONDS.slice(0, attemptNumber - 1).reduce((sum, d) => sum + d, 0);
}

/** Offsets of every scheduled attempt: 0, 30, 90, 390, 2190, 9390, 30990 s. */
export function scheduleOffsetsSeconds(): number[] {
  return Array.from({ length: MAX_ATTEMPTS }, (_, i) => attemptOffsetSeconds(i + 1) ?? 0);
}

/**
 * Milliseconds a run waits before its next attempt: what was left until the attempt's due time (the answer's time +
 * the rule's wait, as recorded on the delivery) when the activity returned, so the time spent after the answer (the
 * record, endpoint health) does not push the schedule back. A duration on the worker's own clock: no comparison of
 * the worker's and the server's clocks. Never longer than the rule's wait, at least 1 ms; results older than it carry
 * none: the rule's wait, as before.
 */
export function waitBeforeNextMs(retryInSeconds: number, nextAttemptInMs: number | null | undefined): number {
  const full = retryInSeconds * 1000;
  return typeof nextAttemptInMs === 'number' && Number.isFinite(nextAttemptInMs)
    ? Math.min(full, Math.max(1, Math.round(nextAttemptInMs)))
    : full;
}
