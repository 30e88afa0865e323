// An ordered subscription's rule in the attempt (docs/deliveries.md, "Ordered delivery"): a scheduled attempt of a
// delivery goes only at its turn, else it waits (`fifo_turn`, woken by the release signal of the delivery before it);
// a delivery that ends passes the turn on, and one that failed after its whole schedule pauses its subscription first.
import type { FifoTurns } from '../src/ordering/fifo-turns.js';
import type { FifoLaneDoc } from '../src/store/fifo-lanes-repo.js';
import type { DeliveryDoc } from '../src/store/documents.js';
import type { Store } from '../src/store/index.js';
import type { AttemptStep, StepInput } from '../workflows/types.js';
import type { DeliveryPort } from './delivery-port.js';

/** A waiter rechecks its turn this often when no release came (the pass of the delivery before it wakes it first). */
export const FIFO_RECHECK_MS = 5 * 60_000;
/**
 * A delivery this close behind the turn waits for it inside its attempt (the next ones go without a Temporal round
 * trip each: the lane's throughput is the receiver's, not the server's); each delivery that goes wakes the one this
 * far behind it. At most IN_ATTEMPT_WAIT_MS, within the activity's margin (src/domain/attempt-bounds.ts).
 */
const AHEAD = 5;
const IN_ATTEMPT_WAIT_MS = 4_000;
/**
 * Waiters inside attempts at once in one worker, in all and per integrator: they hold activity slots, which every
 * tenant shares, so one integrator's lanes never take more than this of them. Beyond, a delivery waits in its run.
 */
const INSIDE_MAX = 20;
const INSIDE_PER_INTEGRATOR = 2 * AHEAD;

export function createAttemptTurns(deps: {
  turns: FifoTurns | null;
  store: Pick<Store, 'deliveries' | 'subscriptions'>;
  now: () => Date;
  autoPause?: DeliveryPort['autoPause'] | undefined;
}) {
  const { turns, store, now, autoPause } = deps;
  const inside = new Map<string, number>();
  let insideTotal = 0;

  /** Waits inside the attempt for the turn at `seq` while the bounds allow: the lane then, or null. */
  async function waitInside(
    t: FifoTurns,
    delivery: DeliveryDoc,
    subscriptionId: string,
    seq: number,
    lane: FifoLaneDoc,
  ) {
    const id = delivery.integratorId;
    const mine = inside.get(id) ?? 0;
    if (insideTotal >= INSIDE_MAX || mine >= INSIDE_PER_INTEGRATOR) return null;
    insideTotal++;
    inside.set(id, mine + 1);
    try {
      return await t.turnComes(subscriptionId, seq, lane, IN_ATTEMPT_WAIT_MS);
    } finally {
      insideTotal--;
      const left = (inside.get(id) ?? 1) - 1;
      if (left > 0) inside.set(id, left);
      else inside.delete(id);
    }
  }

  return {
    /**
     * Before a scheduled attempt of an ordered delivery: its wait when it is not its turn, null when it may go.
     * `stored`: the delivery as read (null on a first attempt, which reads nothing): a waiter does not write its wait
     * again. A recheck, and only it, looks after the turn's holder (src/ordering/fifo-turns.ts heal).
     */
    async before(delivery: DeliveryDoc, stored: DeliveryDoc | null, input: StepInput): Promise<AttemptStep | null> {
      const { fifo } = input;
      if (!turns || !fifo || input.actor !== 'system') return null;
      let { verdict, lane } = await turns.check(fifo.subscriptionId, fifo.seq, delivery._id);
      // A recheck finds the turn stuck (its holder waits out a retry, say): it waits outside, as before.
      if (verdict === 'wait' && lane && fifo.seq - lane.turn <= AHEAD && fifo.recheck !== true) {
        const told = await waitInside(turns, delivery, fifo.subscriptionId, fifo.seq, lane);
        if (told) ({ verdict, lane } = { verdict: turns.verdictOf(told, fifo.seq, delivery._id), lane: told });
      }
      if (verdict === 'go') {
        // Not awaited: the request goes now, the wake-up is for later (its failure only costs that one the pipeline).
        void turns.wake(fifo.subscriptionId, fifo.seq + AHEAD).catch(() => undefined);
        return null;
      }
      if (verdict === 'blocked') {
        await store.deliveries.hold(delivery, now());
        return { step: 'wait', reason: 'subscription_paused', waitMs: null };
      }
      if (fifo.recheck === true && lane) await turns.heal(fifo.subscriptionId, fifo.seq, lane);
      if (stored?.waitReason !== 'fifo_turn') await store.deliveries.wait(delivery, null, 'fifo_turn', now());
      return { step: 'wait', reason: 'fifo_turn', waitMs: FIFO_RECHECK_MS };
    },

    /** After any step: an ordered delivery that ended passes the turn (again, harmlessly, on a retried call). */
    async after(input: StepInput, step: AttemptStep): Promise<void> {
      const { fifo } = input;
      if (!turns || !fifo || step.step === 'wait' || step.result.deliveryStatus === 'pending') return;
      const failed = step.result.deliveryStatus === 'failed';
      if (failed && autoPause) {
        const subscription = await store.subscriptions.findById(fifo.subscriptionId);
        if (subscription && !subscription.deletedAt && subscription.status === 'enabled')
          await autoPause(subscription, 'delivery_failed', now());
      }
      await turns.pass(fifo.subscriptionId, fifo.seq, input.deliveryId, failed);
    },
  };
}
