// What an attempt does when a capacity guard turns it away (src/net/attempt-gate.ts): mark the delivery waiting (one
// write by `_id`: the API shows why and until when), report it, answer the run a wait. A re-ask that the same guard
// would turn away again answers from memory, with that one write and no read: the deliveries behind an open breaker
// ask again every open time, and each re-ask then costs what a wait must (issue 42's hang run: the reads of those
// re-asks were most of the worker's CPU).
import type { AttemptGate, GateVerdict } from '../src/net/attempt-gate.js';
import type { DeliveryIdentity } from '../src/store/deliveries-repo.js';
import type { Store } from '../src/store/index.js';
import type { AttemptObserver } from '../src/telemetry/attempt-observer.js';
import type { AttemptStep, StepInput } from '../workflows/types.js';

type Wait = Extract<GateVerdict, { kind: 'wait' }>;

export function createAttemptWaits(deps: {
  gate: AttemptGate;
  store: Pick<Store, 'deliveries'>;
  now: () => Date;
  observer?: AttemptObserver | undefined;
  maxTracked?: number;
}) {
  const { gate, store, now, observer, maxTracked = 100_000 } = deps;
  /** The deliveries this process turned away, as their re-ask needs them to write without a read. */
  const identities = new Map<string, DeliveryIdentity>();

  async function turnAway(delivery: DeliveryIdentity, verdict: Wait, attemptNumber: number): Promise<AttemptStep> {
    const at = now();
    await store.deliveries.wait(delivery, new Date(at.getTime() + verdict.waitMs), verdict.reason, at);
    const { _id: deliveryId, eventId, subscriptionId, integratorId } = delivery;
    observer?.waited({ deliveryId, eventId, subscriptionId, integratorId, attemptNumber }, verdict.reason);
    identities.delete(deliveryId);
    if (identities.size >= maxTracked) identities.delete(identities.keys().next().value ?? '');
    identities.set(deliveryId, delivery);
    return { step: 'wait', reason: verdict.reason, waitMs: verdict.waitMs };
  }

  return {
    turnAway,
    /** A scheduled re-ask the guard that turned it away here would turn away again: its wait; null otherwise. */
    async again(input: Pick<StepInput, 'deliveryId' | 'attemptNumber' | 'actor'>): Promise<AttemptStep | null> {
      const identity = identities.get(input.deliveryId);
      const verdict = identity && input.actor === 'system' ? gate.recheck(input.deliveryId) : null;
      return identity && verdict ? await turnAway(identity, verdict, input.attemptNumber) : null;
    },
    /** The delivery goes (or ended): nothing to remember. */
    forget(deliveryId: string): void {
      identities.delete(deliveryId);
    },
  };
}
