// The delivery run's state machine (workflows/delivery-machine.ts) driven by hand: each transition, no Temporal.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createDeliveryMachine } from '../../workflows/delivery-machine.js';
import type { AttemptResult, AttemptStep, DeliveryWorkflowInput } from '../../workflows/types.js';

const input: DeliveryWorkflowInput = {
  deliveryId: 'd-1',
  firstAttemptNumber: 1,
  actor: 'system',
  followSchedule: true,
};
const handOff = {
  eventId: 'e-1',
  subscriptionId: 's-1',
  subscriptionVersion: 1,
  integratorId: 'i-1',
  eventType: 'customer.created',
  createdAt: '2026-11-28T00:00:00.000Z',
} as const;
const sent = (n: number, status: AttemptResult['deliveryStatus'], retryInSeconds: number | null): AttemptStep => ({
  step: 'sent',
  result: {
    attemptId: `a-${n}`,
    attemptNumber: n,
    outcome: status === 'succeeded' ? 'succeeded' : 'http_error',
    statusCode: status === 'succeeded' ? 204 : 500,
    deliveryStatus: status,
    retryInSeconds,
    nextAttemptInMs: retryInSeconds === null ? null : retryInSeconds * 1000,
  },
});
const wait = (
  reason: 'endpoint_unresponsive' | 'subscription_paused' | 'fifo_turn',
  waitMs: number | null,
): AttemptStep => ({
  step: 'wait',
  reason,
  waitMs,
});

describe('the delivery state machine', () => {
  it('a failed attempt waits its schedule step, then the next number goes', () => {
    const run = createDeliveryMachine(input);
    run.numberFrom(null);
    assert.equal(run.begin(handOff).handOff, handOff, 'the first attempt carries the hand-off');
    assert.deepEqual(run.afterStep(sent(1, 'pending', 30), 0), { kind: 'wait', ms: 30_000 });
    assert.equal(run.state().nextAttemptAt, new Date(30_000).toISOString());
    assert.equal(run.shown(), 'pending');
    assert.deepEqual(run.wake(), { kind: 'attempt' });
    const second = run.begin(handOff);
    assert.deepEqual([second.attemptNumber, second.actor, second.handOff], [2, 'system', undefined]);
    assert.deepEqual(run.afterStep(sent(2, 'succeeded', null), 40_000), { kind: 'end' });
    assert.deepEqual(run.end(), { status: 'succeeded', attempts: 2 });
  });

  it('a wait keeps the number, drops the hand-off, shows its reason, and a timer re-asks', () => {
    const run = createDeliveryMachine(input);
    run.numberFrom(null);
    run.begin(handOff);
    assert.deepEqual(run.afterStep(wait('endpoint_unresponsive', 5_000), 1_000), { kind: 'wait', ms: 5_000 });
    assert.deepEqual(
      [run.state().waitReason, run.state().nextAttemptAt, run.shown()],
      ['endpoint_unresponsive', new Date(6_000).toISOString(), 'waiting'],
    );
    assert.equal(run.woken(), false, 'a release does not end a guard wait');
    run.release();
    assert.equal(run.woken(), false);
    assert.deepEqual(run.wake(), { kind: 'attempt' });
    assert.equal(run.state().waitReason, undefined);
    const again = run.begin(handOff);
    assert.deepEqual([again.attemptNumber, again.handOff], [1, undefined], 'same number, hand-off stale');
    assert.equal(run.state().attemptCount, 0, 'no attempt counted');
  });

  it('held by a paused subscription: woken by the release, shown held', () => {
    const run = createDeliveryMachine(input);
    run.numberFrom(null);
    run.begin(undefined);
    assert.deepEqual(run.afterStep(wait('subscription_paused', null), 0), { kind: 'wait', ms: null });
    assert.deepEqual([run.shown(), run.state().held, run.state().nextAttemptAt], ['held', true, null]);
    run.release();
    assert.equal(run.woken(), true);
    assert.deepEqual(run.wake(), { kind: 'attempt' });
    assert.equal(run.state().held, false);
  });

  it("an ordered delivery's place goes with every attempt; waiting for its turn, the release wakes it", () => {
    const run = createDeliveryMachine({ ...input, handOff: { ...handOff, fifoSeq: 7 } });
    run.numberFrom(null);
    const fifo = { subscriptionId: 's-1', seq: 7 };
    assert.deepEqual(run.begin({ ...handOff, fifoSeq: 7 }).fifo, fifo);
    assert.deepEqual(run.afterStep(wait('fifo_turn', 300_000), 0), { kind: 'wait', ms: 300_000 });
    assert.deepEqual([run.shown(), run.state().held, run.woken()], ['waiting', undefined, false]);
    run.release();
    assert.equal(run.woken(), true, 'the pass of the delivery before it');
    assert.deepEqual(run.wake(), { kind: 'attempt' });
    const again = run.begin({ ...handOff, fifoSeq: 7 });
    assert.deepEqual([again.attemptNumber, again.fifo, again.handOff], [1, fifo, undefined], 'released: no recheck');
    run.afterStep(wait('fifo_turn', 300_000), 0);
    assert.deepEqual(run.wake(), { kind: 'attempt' }, 'its timer');
    assert.deepEqual(run.begin(undefined).fifo, { ...fifo, recheck: true });
    assert.deepEqual(run.afterStep(sent(1, 'pending', 30), 1000), { kind: 'wait', ms: 30_000 });
    run.release();
    assert.equal(run.woken(), false, 'a release does not cut a retry wait short');
    assert.equal(createDeliveryMachine(input).begin(handOff).fifo, undefined, 'no place without order');
  });

  it('a manual retry during a wait is promised the waiting number and goes as manual', () => {
    const run = createDeliveryMachine(input);
    run.numberFrom(null);
    run.begin(undefined);
    run.afterStep(wait('endpoint_unresponsive', 60_000), 0);
    assert.deepEqual(run.promiseRetry(), { attemptNumber: 1 });
    assert.equal(run.woken(), true);
    run.wake();
    const step = run.begin(undefined);
    assert.deepEqual([step.attemptNumber, step.actor], [1, 'manual']);
    assert.deepEqual(run.promiseRetry(), { attemptNumber: 1 }, 'the attempt in flight serves further requests');
  });

  it('a manual retry that saw the attempt in flight recorded gets the next one, at once, as manual', () => {
    const run = createDeliveryMachine(input);
    run.numberFrom(null);
    run.begin(undefined); // attempt 1 in flight; its record says it failed, its run has not heard yet
    assert.deepEqual(run.promiseRetry({ recordedAttempts: 0 }), { attemptNumber: 1 }, 'taken before the record');
    assert.deepEqual(run.promiseRetry({ recordedAttempts: 1 }), { attemptNumber: 2 });
    assert.deepEqual(run.promiseRetry({ recordedAttempts: 1 }), { attemptNumber: 2 }, 'coalesced');
    assert.deepEqual(run.afterStep(sent(1, 'pending', 30), 0), { kind: 'attempt' }, 'no 30 s wait');
    const step = run.begin(undefined);
    assert.deepEqual([step.attemptNumber, step.actor], [2, 'manual']);
    assert.deepEqual(run.afterStep(sent(2, 'succeeded', null), 0), { kind: 'end' });
  });

  it('a manual retry that saw the in-flight attempt succeed gets one more, without a schedule', () => {
    const run = createDeliveryMachine(input);
    run.numberFrom(null);
    run.begin(undefined);
    assert.deepEqual(run.promiseRetry({ recordedAttempts: 1 }), { attemptNumber: 2 });
    assert.deepEqual(run.afterStep(sent(1, 'succeeded', null), 0), { kind: 'attempt' });
    const step = run.begin(undefined);
    assert.deepEqual([step.attemptNumber, step.actor, step.followSchedule], [2, 'manual', false]);
  });

  it('a cancel during a wait ends the run cancelled with the attempts it made', () => {
    const run = createDeliveryMachine(input);
    run.numberFrom(null);
    run.begin(undefined);
    run.afterStep(sent(1, 'pending', 30), 0);
    run.wake();
    run.begin(undefined);
    run.afterStep(wait('endpoint_unresponsive', 60_000), 0);
    run.requestCancel();
    assert.equal(run.woken(), true);
    assert.deepEqual(run.wake(), { kind: 'end' });
    assert.deepEqual(run.end(), { status: 'cancelled', attempts: 1 });
  });

  it('a retry asked during a last failed attempt makes one more, without a schedule', () => {
    const run = createDeliveryMachine({ ...input, firstAttemptNumber: 7 });
    run.numberFrom(null);
    run.begin(undefined);
    run.requestRetry(); // arrives while attempt 7 runs
    assert.deepEqual(run.afterStep(sent(7, 'failed', null), 0), { kind: 'attempt' });
    const last = run.begin(undefined);
    assert.deepEqual([last.attemptNumber, last.actor, last.followSchedule], [8, 'manual', false]);
  });

  it('a run started by a manual retry numbers from the records', () => {
    const run = createDeliveryMachine({ ...input, actor: 'manual', firstAttemptNumber: 3 });
    assert.equal(run.isNumbered(), false);
    run.numberFrom({ firstAttemptNumber: 9, followSchedule: false });
    assert.equal(run.isNumbered(), true);
    const step = run.begin(undefined);
    assert.deepEqual([step.attemptNumber, step.followSchedule], [9, false]);
    assert.equal(run.state().attemptCount, 8);
  });
});
