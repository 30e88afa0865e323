// A circuit breaker per integrator and receiver origin, in each process that POSTs. A hung endpoint holds an attempt
// slot for the whole response timeout while using no CPU; after BREAKER_TIMEOUTS timeouts in a row its key opens and
// the attempts behind it wait (src/net/attempt-gate.ts) instead of holding slots: no request, no attempt recorded, no
// step of their schedule used. Once the open time has passed one attempt at a time goes as a probe; a probe that times
// out too opens it again for twice as long (up to BREAKER_MAX_OPEN_MS), any answer or other failure closes it. Keyed
// by integrator and origin, never origin alone: integrators share origins (hook-hosting services, gateways), and one
// integrator's slow path must not hold back another's deliveries. Slow answers do not count: an endpoint that answers
// holds slots only within its integrator's share (attempt-gate.ts).

/** Timeouts in a row that open a key's breaker. */
export const BREAKER_TIMEOUTS = 5;
/** How long a breaker first stays open before it lets one probe through. */
export const BREAKER_OPEN_MS = 10_000;
/** The longest open time, reached by doubling after each probe that timed out. */
export const BREAKER_MAX_OPEN_MS = 60_000;

export type BreakerDecision =
  | { readonly kind: 'send' | 'probe' }
  /** Not now: the breaker lets a probe through in `retryInMs` at the earliest (a probe in flight: one open time). */
  | { readonly kind: 'hold'; readonly retryInMs: number; readonly openMs: number };

export interface EndpointBreaker {
  /** Whether a POST under `key` may go now: `probe` is the one request let through an open breaker. */
  admit(key: string): BreakerDecision;
  /** The hold `admit` would answer now, without taking the probe: null when it would let a request go. */
  peek(key: string): Extract<BreakerDecision, { kind: 'hold' }> | null;
  /** What the POST came to: a timeout counts, any other answer or failure closes the breaker. */
  report(key: string, timedOut: boolean): void;
  /** Keys whose breaker is open now (for logs and tests). */
  open(): string[];
}

interface KeyState {
  timeouts: number;
  /** Set while open: no request before this time (ms since the epoch), then one probe. */
  openUntil: number | null;
  openMs: number;
  probing: boolean;
}

/** `maxKeys` bounds the memory: closed keys are forgotten first, then the oldest (it starts closed again). */
export function createEndpointBreaker(
  options: { threshold?: number; openMs?: number; maxOpenMs?: number; now?: () => number; maxKeys?: number } = {},
): EndpointBreaker {
  const { threshold = BREAKER_TIMEOUTS, openMs = BREAKER_OPEN_MS, maxOpenMs = BREAKER_MAX_OPEN_MS } = options;
  const { now = Date.now, maxKeys = 10_000 } = options;
  const states = new Map<string, KeyState>();

  const makeRoom = (): void => {
    if (states.size < maxKeys) return;
    for (const [key, s] of states) if (s.openUntil === null && !s.probing) states.delete(key);
    const oldest = states.keys().next();
    if (states.size >= maxKeys && !oldest.done) states.delete(oldest.value);
  };

  const peek = (key: string): Extract<BreakerDecision, { kind: 'hold' }> | null => {
    const s = states.get(key);
    if (!s || s.openUntil === null) return null;
    if (s.probing) return { kind: 'hold', retryInMs: s.openMs, openMs: s.openMs };
    const left = s.openUntil - now();
    return left > 0 ? { kind: 'hold', retryInMs: left, openMs: s.openMs } : null;
  };

  return {
    peek,
    admit(key) {
      const held = peek(key);
      if (held) return held;
      const s = states.get(key);
      if (!s || s.openUntil === null) return { kind: 'send' };
      s.probing = true;
      return { kind: 'probe' };
    },
    report(key, timedOut) {
      const s = states.get(key);
      if (!timedOut) {
        if (s) states.delete(key);
        return;
      }
      if (!s) makeRoom();
      const state = s ?? { timeouts: 0, openUntil: null, openMs: 0, probing: false };
      state.timeouts += 1;
      state.probing = false;
      if (state.timeouts >= threshold) {
        state.openMs = state.openUntil === null ? openMs : Math.min(maxOpenMs, state.openMs * 2);
        state.openUntil = now() + state.openMs;
      }
      states.set(key, state);
    },
    open() {
      return [...states].filter(([, s]) => s.openUntil !== null).map(([key]) => key);
    },
  };
}
