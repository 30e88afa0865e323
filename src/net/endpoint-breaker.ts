// A circuit breaker per receiver origin, in each process that POSTs (issue 32). A hung endpoint holds an attempt slot
// for the whole response timeout while using no CPU: at a few events a second one such endpoint would keep every slot
// of a worker busy, other endpoints' attempts would queue behind its own and their schedule would slip by minutes. An
// endpoint that answers just inside the timeout does the same, so a slow answer (at least half the response timeout)
// counts as a timeout here. After BREAKER_TIMEOUTS of them in a row the origin's attempts are answered
// `endpoint_unresponsive` at once, without a request, for BREAKER_OPEN_MS; then one attempt at a time goes through as
// a probe, and the first prompt answer of any kind closes the breaker. A short-circuited attempt counts as a failed
// one, on the ordinary schedule.

/** Timeouts (or slow answers) in a row that open an origin's breaker. */
export const BREAKER_TIMEOUTS = 5;
/** How long an open breaker answers at once before it lets one probe through. */
export const BREAKER_OPEN_MS = 10_000;

export type BreakerDecision = 'send' | 'probe' | 'hold';

export interface EndpointBreaker {
  /** Whether a POST to `origin` may go now: `probe` is the one request let through an open breaker. */
  admit(origin: string): BreakerDecision;
  /** What the POST came to: a timeout or a slow answer counts, any other answer or failure resets the count. */
  report(origin: string, stalled: boolean): void;
  /** Origins whose breaker is open now (for logs and tests). */
  open(): string[];
}

interface OriginState {
  timeouts: number;
  /** Set while open: no request before this time (ms since the epoch), then one probe. */
  openUntil: number | null;
  probing: boolean;
}

/** `maxOrigins` bounds the memory: closed origins are forgotten first, then the oldest (it starts closed again). */
export function createEndpointBreaker(
  options: { threshold?: number; openMs?: number; now?: () => number; maxOrigins?: number } = {},
): EndpointBreaker {
  const { threshold = BREAKER_TIMEOUTS, openMs = BREAKER_OPEN_MS, now = Date.now, maxOrigins = 10_000 } = options;
  const states = new Map<string, OriginState>();

  const makeRoom = (): void => {
    if (states.size < maxOrigins) return;
    for (const [origin, s] of states) if (s.openUntil === null && !s.probing) states.delete(origin);
    // Still full of open breakers: the oldest goes (it starts closed again, at worst a few more timeouts).
    const oldest = states.keys().next();
    if (states.size >= maxOrigins && !oldest.done) states.delete(oldest.value);
  };

  return {
    admit(origin) {
      const s = states.get(origin);
      if (!s || s.openUntil === null) return 'send';
      if (s.probing || now() < s.openUntil) return 'hold';
      s.probing = true;
      return 'probe';
    },
    report(origin, stalled) {
      const s = states.get(origin);
      if (!stalled) {
        if (s) states.delete(origin);
        return;
      }
      if (!s) makeRoom();
      const state = s ?? { timeouts: 0, openUntil: null, probing: false };
      state.timeouts += 1;
      state.probing = false;
      if (state.timeouts >= threshold) state.openUntil = now() + openMs;
      states.set(origin, state);
    },
    open() {
      return [...states].filter(([, s]) => s.openUntil !== null).map(([origin]) => origin);
    },
  };
}
