import type { FifoLaneDoc, FifoLanesRepo, FifoSlotDoc } from '../store/fifo-lanes-repo.js';

/** How long a place whose delivery has no run is waited for before it is skipped: its hand-off may be starting it. */
export const FIFO_SLOT_GRACE_MS = 30_000;
/** A waiter this close behind the turn checks, at its recheck, that the turn's holder is alive (the rest just wait). */
const HEALERS = 64;
/** Places one pass walks at most past ended ones (the rest at the next pass or recheck). */
const MAX_WALK = 100;
/** A waiter inside its attempt re-reads the lane this often when no pass of this process told it (another worker's). */
const TURN_POLL_MS = 100;

/** go: its turn (or its place was passed); wait: an earlier delivery has not ended; blocked: one failed before it. */
export type TurnVerdict = 'go' | 'wait' | 'blocked';

export interface FifoTurnDeps {
  readonly lanes: FifoLanesRepo;
  /** Wakes a delivery's run (the release signal); false when none of its runs is running. */
  readonly signalRelease: ((deliveryId: string) => Promise<boolean>) | null;
  /** The place the running run of a delivery holds (its memo); null when none runs, or it holds none. */
  readonly seqOf: ((deliveryId: string) => Promise<number | null>) | null;
  readonly now: () => Date;
  /** How long a place without a slot is waited for after a waiter noted it (default FIFO_SLOT_GRACE_MS). */
  readonly missingGraceMs?: number;
}

/** What the lane says of the delivery at `seq`. */
function verdictOf(lane: FifoLaneDoc | null, seq: number, deliveryId: string): TurnVerdict {
  if (!lane || lane.turn > seq) return 'go';
  if (lane.turn < seq) return 'wait';
  // Absent as often as null (the MongoDB-wire server drops the null fields of an upsert's $setOnInsert).
  const blockedBy = lane.blockedBy ?? null;
  return blockedBy !== null && blockedBy !== deliveryId ? 'blocked' : 'go';
}

/**
 * The turns of an ordered subscription's deliveries (docs/deliveries.md, "Ordered delivery"). A delivery sends only
 * at its turn; when it ends, the turn passes to the next place and that delivery's run is woken. A place whose
 * delivery will never pass it (its run ended without a final attempt, a hand-off that stopped half-way, a repeated
 * hand-off's place) is skipped: by the pass that finds it, or by a waiter's recheck.
 */
export function createFifoTurns(deps: FifoTurnDeps) {
  const { lanes, signalRelease, seqOf, now, missingGraceMs = FIFO_SLOT_GRACE_MS } = deps;
  const young = (slot: FifoSlotDoc): boolean => now().getTime() - slot.at.getTime() < FIFO_SLOT_GRACE_MS;
  /**
   * The waiters inside an attempt in this process, per subscription, with the place each waits for: a pass here hands
   * them the lane at once.
   */
  type Waiter = (lane: FifoLaneDoc | null) => void;
  const waiters = new Map<string, Map<Waiter, number>>();
  const waitsHere = (subscriptionId: string, seq: number): boolean =>
    [...(waiters.get(subscriptionId)?.values() ?? [])].includes(seq);
  const tell = (subscriptionId: string, lane: FifoLaneDoc | null): void =>
    waiters.get(subscriptionId)?.forEach((_, wake) => wake(lane));
  /** The lane a pass in this process told of, or null after `ms` (then the waiter reads it). */
  const nextNews = (subscriptionId: string, seq: number, ms: number) =>
    new Promise<FifoLaneDoc | null>((resolve) => {
      const here = waiters.get(subscriptionId) ?? new Map<Waiter, number>();
      waiters.set(subscriptionId, here);
      const done: Waiter = (lane) => {
        clearTimeout(timer);
        here.delete(done);
        if (here.size === 0) waiters.delete(subscriptionId);
        resolve(lane);
      };
      const timer = setTimeout(() => done(null), ms);
      here.set(done, seq);
    });

  async function skip(subscriptionId: string, seq: number): Promise<void> {
    tell(subscriptionId, await lanes.passFrom(subscriptionId, seq, null));
    await lanes.dropSlot(subscriptionId, seq);
  }

  /** Wakes the run whose turn it is, skipping the places from `turn` on whose delivery has no run to wake. */
  async function wakeFrom(subscriptionId: string, turn: number): Promise<void> {
    for (let seq = turn; seq < turn + MAX_WALK; seq++) {
      const slot = await lanes.slot(subscriptionId, seq);
      if (!slot) return; // a hand-off between its two writes (its run will find its turn), or one that stopped there
      if (!slot.dud) {
        if (signalRelease && (await signalRelease(slot.deliveryId))) return;
        if (young(slot)) return; // its run is being started, and finds its turn itself
      }
      await skip(subscriptionId, seq);
    }
  }

  return {
    verdictOf,

    /** Whether the delivery at `seq` may send now. */
    async check(subscriptionId: string, seq: number, deliveryId: string) {
      const lane = await lanes.lane(subscriptionId);
      return { verdict: verdictOf(lane, seq, deliveryId), lane };
    },

    /**
     * Waits (inside an attempt, at most `withinMs`) until the turn reaches `seq`, from the lane as `check` read it: told
     * by a pass in this process, else re-reading the lane every TURN_POLL_MS. The lane then, or null when the time ran
     * out.
     */
    async turnComes(
      subscriptionId: string,
      seq: number,
      read: FifoLaneDoc,
      withinMs: number,
    ): Promise<FifoLaneDoc | null> {
      const giveUpAt = Date.now() + withinMs;
      for (let lane: FifoLaneDoc | null = read; ;) {
        if (!lane || lane.turn >= seq) return lane;
        const left = giveUpAt - Date.now();
        if (left <= 0) return null;
        lane =
          (await nextNews(subscriptionId, seq, Math.min(TURN_POLL_MS, left))) ?? (await lanes.lane(subscriptionId));
      }
    },

    /** Wakes the run at `seq` (it comes near its turn): it then waits inside its attempt (unless it does already). */
    async wake(subscriptionId: string, seq: number): Promise<void> {
      if (waitsHere(subscriptionId, seq)) return;
      const slot = await lanes.slot(subscriptionId, seq);
      if (slot && !slot.dud && signalRelease) await signalRelease(slot.deliveryId);
    },

    /** The delivery at `seq` ended (`failed`: it blocks the rest until the resume): the turn passes on. */
    async pass(subscriptionId: string, seq: number, deliveryId: string, failed: boolean): Promise<void> {
      const lane = await lanes.passFrom(subscriptionId, seq, failed ? deliveryId : null);
      const turn = lane?.turn ?? seq + 1;
      // The delivery whose turn it is now waits inside its attempt here: told, it goes, with no release to its run.
      const handed = lane !== null && !lane.blockedBy && waitsHere(subscriptionId, turn); // a failure blocks it
      tell(subscriptionId, lane);
      await lanes.dropSlot(subscriptionId, seq);
      if (!handed) await wakeFrom(subscriptionId, turn);
    },

    /**
     * A waiter's recheck (at `seq`, the lane as it read it): when it is close behind the turn, it skips the turn's
     * place if no run holds it. A place without a slot is noted first, and skipped at a later recheck.
     */
    async heal(subscriptionId: string, seq: number, lane: FifoLaneDoc): Promise<void> {
      const turn = lane.turn;
      if (seq - turn > HEALERS) return;
      const slot = await lanes.slot(subscriptionId, turn);
      if (!slot) {
        const noted = lane.missing?.seq === turn ? lane.missing.since : null;
        if (!noted) return await lanes.noteMissing(subscriptionId, turn, now());
        if (now().getTime() - noted.getTime() < missingGraceMs) return;
      } else if (!slot.dud) {
        if (young(slot) || !seqOf || (await seqOf(slot.deliveryId)) === turn) return;
      }
      await skip(subscriptionId, turn);
      await wakeFrom(subscriptionId, turn + 1);
    },
  };
}

export type FifoTurns = ReturnType<typeof createFifoTurns>;
