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
  /** Deliveries turned away whose wait has not run out yet, by reason (this process's; the metric sums them). */
  waiting(): Record<GateWaitReason, number>;
}

export interface AttemptGateOptions {
  /** Attempt slots one integrator may hold at once in this process. */
  readonly slotsPerIntegrator: number;
  readonly breaker?: EndpointBreaker;
  readonly now?: () => number;
  readonly random?: () => number;
  /** Bounds the memory of the waiting gauge; the oldest entries go first. */
  readonly maxTracked?: number;
}

export function createAttemptGate(options: AttemptGateOptions): AttemptGate {
  const { slotsPerIntegrator, breaker = createEndpointBreaker(), now = Date.now, random = Math.random } = options;
  const { maxTracked = 100_000 } = options;
  const inFlight = new Map<string, number>();
  const turnedAway = new Map<string, { reason: GateWaitReason; until: number }>();

  const wait = (deliveryId: string, reason: GateWaitReason, soonestMs: number, spreadMs: number): GateVerdict => {
    const waitMs = Math.round(soonestMs + random() * spreadMs);
    turnedAway.delete(deliveryId); // re-inserted last: the map stays in order of `until`, roughly
    if (turnedAway.size >= maxTracked) turnedAway.delete(turnedAway.keys().next().value ?? '');
    turnedAway.set(deliveryId, { reason, until: now() + waitMs });
    return { kind: 'wait', reason, waitMs };
  };

  return {
    admit({ integratorId, origin, deliveryId, explicit }) {
      const holding = inFlight.get(integratorId) ?? 0;
      const key = `${integratorId} ${origin}`;
      if (!explicit) {
        if (holding >= slotsPerIntegrator) return wait(deliveryId, 'integrator_busy', BUSY_RETRY_MS, BUSY_RETRY_MS);
        const decision = breaker.admit(key);
        // Spread over one open time, so that the deliveries behind a breaker do not all ask again at once.
        if (decision.kind === 'hold')
          return wait(deliveryId, 'endpoint_unresponsive', decision.retryInMs, decision.openMs);
      }
      turnedAway.delete(deliveryId);
      inFlight.set(integratorId, holding + 1);
      let finished = false;
      return {
        kind: 'send',
        done(timedOut) {
          if (finished) return;
          finished = true;
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
        if (w.until < at) turnedAway.delete(id);
        else counts[w.reason] += 1;
      }
      return counts;
    },
  };
}

/** The share of a process's attempt slots (HERALD_WORKER_INTEGRATOR_SHARE, percent) as a number of slots, ≥ 1. */
export const slotsPerIntegrator = (slots: number, sharePercent: number): number =>
  Math.max(1, Math.ceil((slots * sharePercent) / 100));
