// An ordered lane's hand-over (src/ordering/fifo-turns.ts): a pass hands the turn to the delivery that waits for it
// inside its attempt in this process, with no release signal to its run (it goes by itself); any other next delivery
// (waiting in its run, or behind a failed one) gets the release. The lanes are an in-memory fake: the rule is pure.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createFifoTurns } from '../../src/ordering/fifo-turns.js';
import type { FifoLaneDoc, FifoLanesRepo, FifoSlotDoc } from '../../src/store/fifo-lanes-repo.js';

const SUB = 'sub-1';

/** A lane whose turn is 1, with places 1..`places` held by deliveries d1..dN. */
function lanesOf(places: number) {
  const lane: FifoLaneDoc = { _id: SUB, integratorId: 'i', next: places, turn: 1, blockedBy: null };
  const slots = new Map<number, FifoSlotDoc>();
  for (let seq = 1; seq <= places; seq++)
    slots.set(seq, {
      _id: `${SUB}|${seq}`,
      integratorId: 'i',
      subscriptionId: SUB,
      deliveryId: `d${seq}`,
      at: new Date(),
    });
  const lanes = {
    lane: async () => ({ ...lane }),
    slot: async (_: string, seq: number) => slots.get(seq) ?? null,
    passFrom: async (_: string, seq: number, blockedBy: string | null) => {
      lane.turn = Math.max(lane.turn, seq + 1);
      if (blockedBy) lane.blockedBy = blockedBy;
      return { ...lane };
    },
    dropSlot: async (_: string, seq: number) => void slots.delete(seq),
  } as unknown as FifoLanesRepo;
  return { lane, lanes };
}

function turnsOf(places: number) {
  const { lane, lanes } = lanesOf(places);
  const released: string[] = [];
  const turns = createFifoTurns({
    lanes,
    signalRelease: async (deliveryId) => {
      released.push(deliveryId);
      return true;
    },
    seqOf: null,
    now: () => new Date(),
  });
  return { lane, turns, released };
}

describe('fifo turns: the hand-over', () => {
  it('hands the turn to the delivery waiting for it here, with no release to its run', async () => {
    const { lane, turns, released } = turnsOf(3);
    const waiting = turns.turnComes(SUB, 2, { ...lane }, 2_000);
    await turns.pass(SUB, 1, 'd1', false);
    const told = await waiting;
    assert.equal(told?.turn, 2);
    assert.equal(turns.verdictOf(told, 2, 'd2'), 'go');
    assert.deepEqual(released, []);
  });

  it('releases the next run when no attempt waits for the turn here', async () => {
    const { lane, turns, released } = turnsOf(3);
    // A waiter further back is told the lane, but the turn's own delivery waits in its run.
    const behind = turns.turnComes(SUB, 3, { ...lane }, 150);
    await turns.pass(SUB, 1, 'd1', false);
    assert.deepEqual(released, ['d2']);
    assert.equal(await behind, null); // still not its turn when its time ran out
  });

  it('releases the next run after a failed delivery, even with a waiter here (it finds the lane blocked)', async () => {
    const { lane, turns, released } = turnsOf(3);
    const waiting = turns.turnComes(SUB, 2, { ...lane }, 2_000);
    await turns.pass(SUB, 1, 'd1', true);
    const told = await waiting;
    assert.equal(turns.verdictOf(told, 2, 'd2'), 'blocked');
    assert.deepEqual(released, ['d2']);
  });

  it('wakes a run ahead only when its attempt does not wait here already', async () => {
    const { lane, turns, released } = turnsOf(3);
    const waiting = turns.turnComes(SUB, 3, { ...lane }, 150);
    await turns.wake(SUB, 3);
    await turns.wake(SUB, 2);
    assert.deepEqual(released, ['d2']);
    await waiting;
  });
});
