// Whether a scheduled attempt may send now, in each process that POSTs (issue 42). Two guards protect a worker's
// attempt slots, and neither lets one tenant decide for another: an integrator holds at most its share of the slots
// (an endpoint that answers slowly, or a burst, cannot take the rest), and the breaker of an integrator and origin
// (endpoint-breaker.ts) stops sending to an endpoint whose requests keep timing out. An attempt either guard turns
// away *waits*: the activity returns at once (no slot held), records no attempt and uses no step of the schedule; the
// run sleeps until the time answered here and asks again. Explicit requests (a manual retry, a test send) always go:
// the integrator asked for that request now, and its own budgets bound them.
import type { GateWaitReason } from '../domain/delivery-vocabulary.js';
import { createEndpointBreaker, type EndpointBreaker } from './endpoint-breaker.js';

export type { GateWaitReason };

/** A turned-away attempt asks again this long after, at the soonest (plus up to as much again, spread at random). */
export const BUSY_RETRY_MS = 1_000;
/** The longest wait of a delivery over its integrator's share, however many wait with it. */
export const BUSY_MAX_WAIT_MS = 30_000;
/** How long past its time a turned-away delivery is remembered for its re-ask. */
const FORGET_AFTER_MS = 60_000;

export type GateVerdict =
  | { readonly kind: 'send'; done(timedOut: boolean): void }
  | { readonly kind: 'wait'; readonly reason: GateWaitReason; readonly waitMs: number };

export interface AttemptRequest {
  readonly integratorId: string;
  /** The callback URL's origin (scheme, host, port). */
  readonly origin: string;
  readonly deliveryId: string;
  /** A manual retry or a test send: never turned away (it still counts in the share and reports to the breaker). */
  readonly explicit: boolean;
}

export interface AttemptGate {
  admit(request: AttemptRequest): GateVerdict;
  /**
   * For a delivery this process turned away: the wait it would answer now (nothing taken: not a slot, not the probe),
   * or null when the attempt should go the whole way (it may be admitted, or it was not turned away here). Lets a
   * re-ask that would wait again answer without reading anything.
   */
  recheck(deliveryId: string): Extract<GateVerdict, { kind: 'wait' }> | null;
  /** Deliveries turned away whose wait has not run out yet, by reason (this process's; the metric sums them). */
  waiting(): Record<GateWaitReason, number>;
}

export interface AttemptGateOptions {
  /** Attempt slots one integrator may hold at once in this process, whatever the others do. */
  readonly slotsPerIntegrator: number;
  /**
   * The process's attempt slots. Past its share an integrator may take one more only while a share's worth stays free
   * for the others (a lone integrator is not held to its share on an idle worker). Default: no more than the share.
   */
  readonly slots?: number;
  readonly breaker?: EndpointBreaker;
  readonly now?: () => number;
  readonly random?: () => number;
  /** Bounds the memory of the waiting gauge; the oldest entries go first. */
  readonly maxTracked?: number;
}

/** A turned-away delivery: why, until when, and what it waits on (for its re-ask). */
interface TurnedAway {
  readonly reason: GateWaitReason;
  readonly until: number;
  readonly integratorId: string;
  /** The breaker's key: the integrator and the origin. */
  readonly key: string;
}

type Wait = Extract<GateVerdict, { kind: 'wait' }>;

export function createAttemptGate(options: AttemptGateOptions): AttemptGate {
  const { slotsPerIntegrator, breaker = createEndpointBreaker(), now = Date.now, random = Math.random } = options;
  const { maxTracked = 100_000, slots = 0 } = options;
  const inFlight = new Map<string, number>();
  let total = 0;
  /** Past its share, an integrator may take a slot while a share's worth stays free for the others. */
  const overShareAllowed = (): boolean => total + 1 <= slots - slotsPerIntegrator;
  const turnedAway = new Map<string, TurnedAway>();
  /** Per integrator: its deliveries waiting for its share here, and until when (pruned as it is counted). */
  const overShare = new Map<string, Map<string, number>>();

  /**
   * Turns away a delivery over its integrator's share: the more wait with it, the longer (one slot of the share serves
   * about one re-ask a second), so that a backlog behind the share asks again at about the rate the share serves,
   * not every second each (a recovered endpoint's backlog re-asking every second swamped the worker and Temporal).
   */
  function overTheShare(deliveryId: string, on: Omit<TurnedAway, 'until' | 'reason'>): Wait {
    const waiting = overShare.get(on.integratorId) ?? new Map<string, number>();
    const at = now();
    for (const [id, until] of waiting) if (until < at || id === deliveryId) waiting.delete(id);
    const soonest = Math.min(BUSY_MAX_WAIT_MS, BUSY_RETRY_MS * Math.max(1, waiting.size / slotsPerIntegrator));
    const turned = wait(deliveryId, { ...on, reason: 'integrator_busy' }, soonest, soonest);
    waiting.set(deliveryId, at + turned.waitMs);
    overShare.set(on.integratorId, waiting);
    return turned;
  }

  const wait = (deliveryId: string, on: Omit<TurnedAway, 'until'>, soonestMs: number, spreadMs: number): Wait => {
    const waitMs = Math.round(soonestMs + random() * spreadMs);
    turnedAway.delete(deliveryId); // re-inserted last: the map stays in order of `until`, roughly
    if (turnedAway.size >= maxTracked) turnedAway.delete(turnedAway.keys().next().value ?? '');
    turnedAway.set(deliveryId, { ...on, until: now() + waitMs });
    return { kind: 'wait', reason: on.reason, waitMs };
  };

  /**
   * The wait of a scheduled attempt now, or null: the share first (checking it takes nothing), then the breaker's
   * hold (`admit` may take the probe, `peek` takes nothing).
   */
  function waitNow(deliveryId: string, integratorId: string, key: string, take: boolean): Wait | null {
    if ((inFlight.get(integratorId) ?? 0) >= slotsPerIntegrator && !overShareAllowed())
      return overTheShare(deliveryId, { integratorId, key });
    const hold = take ? breaker.admit(key) : breaker.peek(key);
    if (hold === null || hold.kind !== 'hold') return null;
    // Spread over one open time, so that the deliveries behind a breaker do not all ask again at once.
    return wait(deliveryId, { integratorId, key, reason: 'endpoint_unresponsive' }, hold.retryInMs, hold.openMs);
  }

  return {
    recheck(deliveryId) {
      const last = turnedAway.get(deliveryId);
      return last ? waitNow(deliveryId, last.integratorId, last.key, false) : null;
    },
    admit({ integratorId, origin, deliveryId, explicit }) {
      const key = `${integratorId} ${origin}`;
      const waiting = explicit ? null : waitNow(deliveryId, integratorId, key, true);
      if (waiting) return waiting;
      turnedAway.delete(deliveryId);
      const over = overShare.get(integratorId);
      over?.delete(deliveryId);
      if (over?.size === 0) overShare.delete(integratorId);
      inFlight.set(integratorId, (inFlight.get(integratorId) ?? 0) + 1);
      total += 1;
      let finished = false;
      return {
        kind: 'send',
        done(timedOut) {
          if (finished) return;
          finished = true;
          total -= 1;
          const left = (inFlight.get(integratorId) ?? 1) - 1;
          if (left > 0) inFlight.set(integratorId, left);
          else inFlight.delete(integratorId);
          breaker.report(key, timedOut);
        },
      };
    },
    waiting() {
      const counts: Record<GateWaitReason, number> = { endpoint_unresponsive: 0, integrator_busy: 0 };
      const at = now();
      for (const [id, w] of turnedAway) {
        // Kept a while past its time: its re-ask, a little late, still finds it (recheck).
        if (w.until < at - FORGET_AFTER_MS) turnedAway.delete(id);
        else if (w.until >= at) counts[w.reason] += 1;
      }
      for (const [integratorId, waiting] of overShare) {
        for (const [id, until] of waiting) if (until < at) waiting.delete(id);
        if (waiting.size === 0) overShare.delete(integratorId);
      }
      return counts;
    },
  };
}

/** The share of a process's attempt slots (HERALD_WORKER_INTEGRATOR_SHARE, percent) as a number of slots, ≥ 1. */
export const slotsPerIntegrator = (slots: number, sharePercent: number): number =>
  Math.max(1, Math.ceil((slots * sharePercent) / 100));
