import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createEndpointBreaker } from '../../src/net/endpoint-breaker.js';
import { fakeClock } from '../helpers/fake-clock.js';

// Keys are an integrator and an origin (src/net/attempt-gate.ts): two integrators on one origin are two keys.
const A = 'int-a https://hooks.example:443';
const B = 'int-b https://hooks.example:443';

describe('endpoint breaker', () => {
  const clock = fakeClock;
  const kind = (d: { kind: string }): string => d.kind;

  it('opens after the threshold of timeouts in a row, for that key only', () => {
    const c = clock();
    const breaker = createEndpointBreaker({ threshold: 3, openMs: 10_000, now: c.now });
    for (let i = 0; i < 2; i++) {
      assert.equal(kind(breaker.admit(A)), 'send');
      breaker.report(A, true);
    }
    assert.equal(kind(breaker.admit(A)), 'send', 'two timeouts do not open it');
    breaker.report(A, true);
    assert.deepEqual(breaker.admit(A), { kind: 'hold', retryInMs: 10_000, openMs: 10_000 });
    assert.equal(kind(breaker.admit(B)), 'send', 'another integrator on the same origin is not held');
    assert.deepEqual(breaker.open(), [A]);
  });

  it('any answer resets the count', () => {
    const breaker = createEndpointBreaker({ threshold: 3 });
    breaker.report(A, true);
    breaker.report(A, true);
    breaker.report(A, false);
    breaker.report(A, true);
    breaker.report(A, true);
    assert.equal(kind(breaker.admit(A)), 'send');
  });

  it('lets one probe through once open long enough; a timed-out probe opens it twice as long, up to the cap', () => {
    const c = clock();
    const breaker = createEndpointBreaker({ threshold: 1, openMs: 10_000, maxOpenMs: 30_000, now: c.now });
    breaker.report(A, true);
    c.advance(9_999);
    assert.deepEqual(breaker.admit(A), { kind: 'hold', retryInMs: 1, openMs: 10_000 });
    c.advance(1);
    assert.equal(kind(breaker.admit(A)), 'probe');
    assert.deepEqual(breaker.admit(A), { kind: 'hold', retryInMs: 10_000, openMs: 10_000 }, 'one probe at a time');
    breaker.report(A, true);
    assert.deepEqual(breaker.admit(A), { kind: 'hold', retryInMs: 20_000, openMs: 20_000 }, 'doubled');
    c.advance(20_000);
    assert.equal(kind(breaker.admit(A)), 'probe');
    breaker.report(A, true);
    assert.deepEqual(breaker.admit(A), { kind: 'hold', retryInMs: 30_000, openMs: 30_000 }, 'capped');
    c.advance(30_000);
    assert.equal(kind(breaker.admit(A)), 'probe');
    breaker.report(A, false);
    assert.equal(kind(breaker.admit(A)), 'send');
    assert.deepEqual(breaker.open(), []);
  });

  it('holds at most maxKeys, forgetting closed keys first, then the oldest', () => {
    const C = 'int-c https://c.example:443';
    const breaker = createEndpointBreaker({ threshold: 2, maxKeys: 2 });
    breaker.report(A, true); // counting, not open
    breaker.report(B, true);
    breaker.report(C, true); // full: A and B, both closed, are forgotten
    breaker.report(A, true);
    assert.equal(kind(breaker.admit(A)), 'send', 'A counts from zero again');
    const open = createEndpointBreaker({ threshold: 1, maxKeys: 2 });
    for (const key of [A, B, C]) open.report(key, true);
    assert.deepEqual(open.open(), [B, C], 'the oldest open one made room');
  });
});
