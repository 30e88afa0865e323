// The change ids passed to patched(), one per workflow change (docs/upgrade-workflow.md, "Versioning the delivery
// workflow"). An id is never reused, and stays in the code as long as a run that took the old path may exist.
export const patches = {
  /** The activity applies the attempt rule and answers the wait before the next attempt (before: the workflow
   * computed it and sent it in). */
  attemptRule: 'attempt-rule',
  /** A cancel signal ends a waiting run at once (before: cancellation woke the run with retryNow). */
  cancelSignal: 'cancel-signal',
  /** Manual retry by update; a run started by one reads its first attempt number from the records. */
  manualRetryUpdate: 'manual-retry-update',
  /** A scheduled attempt that finds its subscription paused answers `held`: the run waits for `release` (before: no
   * hold; the attempt was made). */
  pauseHold: 'pause-hold',
  /** All of the above in one marker: a new run records this one instead of three (four in a run started by a manual
   * retry; each marker costs the server ≈ 1 ms of CPU per run); a history recorded before it keeps taking exactly the
   * paths its markers chose. */
  oneMarker: 'one-marker',
  /** The run as a state machine (workflows/delivery-machine.ts) over `runAttempt`, which answers sent, end or wait: a
   * wait (paused subscription, an unresponsive endpoint's breaker, the integrator's share of slots) uses no attempt
   * number and no schedule step. Implies every change above; a new run records this marker only. */
  attemptSteps: 'attempt-steps',
} as const;
