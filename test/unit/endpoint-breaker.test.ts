import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createEndpointBreaker } from '../../src/net/endpoint-breaker.js';

const A = 'https://a.example:443';
const B = 'https://b.example:443';

describe('endpoint breaker', () => {
  const clock = () => {
    let t = 1_000_000;
    return { now: () => t, advance: (ms: number) => (t += ms) };
  };

  it('opens after the threshold of timeouts in a row, for that origin only', () => {
    const c = clock();
    const breaker = createEndpointBreaker({ threshold: 3, openMs: 10_000, now: c.now });
    for (let i = 0; i < 2; i++) {
      assert.equal(breaker.admit(A), 'send');
      breaker.report(A, true);
    }
    assert.equal(breaker.admit(A), 'send', 'two timeouts do not open it');
    breaker.report(A, true);
    assert.equal(breaker.admit(A), 'hold');
    assert.equal(breaker.admit(B), 'send');
    assert.deepEqual(breaker.open(), [A]);
  });

  it('any answer resets the count', () => {
    const breaker = createEndpointBreaker({ threshold: 3 });
    breaker.report(A, true);
    breaker.report(A, true);
    breaker.report(A, false);
    breaker.report(A, true);
    breaker.report(A, true);
    assert.equal(breaker.admit(A), 'send');
  });

  it('lets one probe through once open long enough; an answer closes it, a timeout opens it again', () => {
    const c = clock();
    const breaker = createEndpointBreaker({ threshold: 1, openMs: 10_000, now: c.now });
    breaker.report(A, true);
    c.advance(9_999);
    assert.equal(breaker.admit(A), 'hold');
    c.advance(1);
    assert.equal(breaker.admit(A), 'probe');
    assert.equal(breaker.admit(A), 'hold', 'one probe at a time');
    breaker.report(A, true);
    assert.equal(breaker.admit(A), 'hold', 'the probe timed out: open again');
    c.advance(10_000);
    assert.equal(breaker.admit(A), 'probe');
    breaker.report(A, false);
    assert.equal(breaker.admit(A), 'send');
    assert.deepEqual(breaker.open(), []);
  });

  it('holds at most maxOrigins, forgetting closed origins first, then the oldest', () => {
    const breaker = createEndpointBreaker({ threshold: 2, maxOrigins: 2 });
    breaker.report(A, true); // counting, not open
    breaker.report(B, true);
    breaker.report('https://c.example:443', true); // full: A and B, both closed, are forgotten
    breaker.report(A, true);
    assert.equal(breaker.admit(A), 'send', 'A counts from zero again');
    const open = createEndpointBreaker({ threshold: 1, maxOrigins: 2 });
    for (const origin of [A, B, 'https://c.example:443']) open.report(origin, true);
    assert.deepEqual(open.open(), [B, 'https://c.example:443'], 'the oldest open one made room');
  });
});
