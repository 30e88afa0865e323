import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BUSY_RETRY_MS, createAttemptGate, slotsPerIntegrator } from '../../src/net/attempt-gate.js';
import { createEndpointBreaker } from '../../src/net/endpoint-breaker.js';

const ORIGIN = 'https://hooks.example:443';
const req = (integratorId: string, deliveryId: string, explicit = false) => ({
  integratorId,
  origin: ORIGIN,
  deliveryId,
  explicit,
});

describe('attempt gate', () => {
  it("bounds one integrator's attempts in flight; the others keep going, and a finished one frees a slot", () => {
    const gate = createAttemptGate({ slotsPerIntegrator: 2, random: () => 0.5 });
    const a1 = gate.admit(req('a', 'd1'));
    const a2 = gate.admit(req('a', 'd2'));
    assert.equal(a1.kind, 'send');
    assert.equal(a2.kind, 'send');
    assert.deepEqual(gate.admit(req('a', 'd3')), {
      kind: 'wait',
      reason: 'integrator_busy',
      waitMs: BUSY_RETRY_MS * 1.5,
    });
    assert.equal(gate.admit(req('b', 'd4')).kind, 'send', 'another integrator is not bounded by a');
    assert.deepEqual(gate.waiting(), { endpoint_unresponsive: 0, integrator_busy: 1 });
    if (a1.kind === 'send') a1.done(false);
    assert.equal(gate.admit(req('a', 'd3')).kind, 'send', 'a slot came free');
    assert.deepEqual(gate.waiting(), { endpoint_unresponsive: 0, integrator_busy: 0 }, 'd3 no longer waits');
  });

  it('the more wait for the share, the longer each waits: the backlog asks again at about the pace the share serves', () => {
    const gate = createAttemptGate({ slotsPerIntegrator: 2, random: () => 0.5 });
    gate.admit(req('a', 'd1'));
    gate.admit(req('a', 'd2'));
    const waits = Array.from({ length: 10 }, (_, i) => gate.admit(req('a', `w${i}`)));
    const ms = waits.map((w) => (w.kind === 'wait' ? w.waitMs : 0));
    // 1 s while no more than the share waits, then 1 s per share's worth waiting, half as much again at random.
    assert.deepEqual(ms, [1500, 1500, 1500, 2250, 3000, 3750, 4500, 5250, 6000, 6750]);
    assert.equal(gate.admit(req('b', 'b1')).kind, 'send', "another integrator is not slowed by a's backlog");
  });

  it('lets a lone integrator past its share while a share of the slots stays free for the others', () => {
    const gate = createAttemptGate({ slotsPerIntegrator: 2, slots: 5, random: () => 0 });
    const sent = ['d1', 'd2', 'd3'].map((id) => gate.admit(req('a', id)).kind);
    assert.deepEqual(sent, ['send', 'send', 'send'], 'the third: 3 of 5 in flight leaves 2 free');
    assert.equal(gate.admit(req('a', 'd4')).kind, 'wait', 'a fourth would leave less than a share free');
    assert.equal(gate.admit(req('b', 'b1')).kind, 'send', 'b finds its share free');
  });

  it('never turns away an explicit request (a manual retry, a test send), which still counts in the share', () => {
    const gate = createAttemptGate({ slotsPerIntegrator: 1 });
    assert.equal(gate.admit(req('a', 'd1')).kind, 'send');
    assert.equal(gate.admit(req('a', 'd2', true)).kind, 'send');
    assert.equal(gate.admit(req('a', 'd3')).kind, 'wait');
  });

  it("waits out a breaker opened by the integrator's own timeouts, spread over one open time; others on the origin go", () => {
    let t = 0;
    const breaker = createEndpointBreaker({ threshold: 2, openMs: 10_000, now: () => t });
    const gate = createAttemptGate({ slotsPerIntegrator: 100, breaker, now: () => t, random: () => 0.25 });
    for (const id of ['d1', 'd2']) {
      const v = gate.admit(req('a', id));
      assert.equal(v.kind, 'send');
      if (v.kind === 'send') v.done(true);
    }
    t = 4_000;
    assert.deepEqual(gate.admit(req('a', 'd3')), { kind: 'wait', reason: 'endpoint_unresponsive', waitMs: 8_500 });
    assert.equal(gate.admit(req('b', 'd4')).kind, 'send', "b's requests to the same origin are not held");
    t = 10_000;
    const probe = gate.admit(req('a', 'd3'));
    assert.equal(probe.kind, 'send', 'the probe goes');
    assert.equal(gate.admit(req('a', 'd5')).kind, 'wait', 'one probe at a time');
    if (probe.kind === 'send') probe.done(false);
    assert.equal(gate.admit(req('a', 'd5')).kind, 'send', 'an answer closed it');
  });

  it('rechecks a turned-away delivery without taking the probe; once the breaker may probe, it goes the whole way', () => {
    let t = 0;
    const breaker = createEndpointBreaker({ threshold: 1, openMs: 10_000, now: () => t });
    const gate = createAttemptGate({ slotsPerIntegrator: 100, breaker, now: () => t, random: () => 0 });
    const first = gate.admit(req('a', 'd1'));
    if (first.kind === 'send') first.done(true); // opens a's breaker for the origin
    assert.equal(gate.admit(req('a', 'd2')).kind, 'wait');
    assert.equal(gate.recheck('never-turned-away'), null, 'only what this process turned away');
    t = 5_000;
    assert.deepEqual(gate.recheck('d2'), { kind: 'wait', reason: 'endpoint_unresponsive', waitMs: 5_000 });
    t = 10_000;
    assert.equal(gate.recheck('d2'), null, 'the breaker would let a probe go: the attempt goes the whole way');
    assert.equal(gate.admit(req('a', 'd2')).kind, 'send', 'recheck did not take the probe');
  });

  it('a share is a part of the slots, at least one', () => {
    assert.equal(slotsPerIntegrator(100, 25), 25);
    assert.equal(slotsPerIntegrator(2, 25), 1);
    assert.equal(slotsPerIntegrator(10, 100), 10);
  });
});
