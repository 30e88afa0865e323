// The request budget's token buckets (issue 33 item 2), on a fake clock: a burst, then the rate; a refused request
// spends nothing; each key has its own bucket; the map stays bounded.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createTokenBuckets } from '../../src/util/token-buckets.js';
import { fakeClock } from '../helpers/fake-clock.js';

const clock = fakeClock;

describe('token buckets', () => {
  it('serves a full burst at once, then refuses with the wait until the next token', () => {
    const c = clock();
    const buckets = createTokenBuckets({ ratePerSec: 2, burst: 3, now: c.now });
    assert.deepEqual(
      [1, 2, 3].map(() => buckets.take('a')),
      [0, 0, 0],
    );
    assert.equal(buckets.take('a'), 0.5, 'one token every 0.5 s');
    c.advance(200);
    assert.ok(Math.abs(buckets.take('a') - 0.3) < 1e-9, 'the refusal above spent nothing: 0.3 s left');
    c.advance(300);
    assert.equal(buckets.take('a'), 0);
    assert.equal(buckets.take('a'), 0.5);
  });

  it('refills at the rate up to the burst, never beyond', () => {
    const c = clock();
    const buckets = createTokenBuckets({ ratePerSec: 10, burst: 4, now: c.now });
    for (let i = 0; i < 4; i++) assert.equal(buckets.take('a'), 0);
    c.advance(60_000);
    const served = Array.from({ length: 6 }, () => buckets.take('a')).filter((w) => w === 0).length;
    assert.equal(served, 4, 'a minute idle gives back the burst, not 600 tokens');
  });

  it('keeps one bucket per key: an empty one does not slow another', () => {
    const c = clock();
    const buckets = createTokenBuckets({ ratePerSec: 1, burst: 2, now: c.now });
    buckets.take('a');
    buckets.take('a');
    assert.ok(buckets.take('a') > 0);
    assert.equal(buckets.take('b'), 0);
    assert.equal(buckets.take('b'), 0);
    assert.ok(buckets.take('b') > 0);
  });

  it('holds at most maxKeys buckets, dropping the least recently used', () => {
    const c = clock();
    const buckets = createTokenBuckets({ ratePerSec: 1, burst: 1, maxKeys: 3, now: c.now });
    for (const key of ['a', 'b', 'c']) assert.equal(buckets.take(key), 0);
    assert.ok(buckets.take('a') > 0, 'a used again: now the most recent');
    assert.equal(buckets.take('d'), 0);
    assert.equal(buckets.size, 3);
    assert.ok(buckets.take('a') > 0, 'a was kept (b, the least recently used, was dropped)');
    assert.equal(buckets.take('b'), 0, 'b comes back full');
    assert.equal(buckets.size, 3);
  });
  it('charges a cost, peeks without spending, and counts a cost above the burst as the burst', () => {
    const c = clock();
    const buckets = createTokenBuckets({ ratePerSec: 1, burst: 5, now: c.now });
    assert.equal(buckets.peek('a', 5), 0);
    assert.equal(buckets.peek('a', 5), 0, 'a peek spends nothing');
    assert.equal(buckets.take('a', 2), 0);
    assert.equal(buckets.peek('a', 4), 1, '3 left: a cost of 4 waits 1 s');
    assert.equal(buckets.take('a', 4), 1, 'refused, nothing spent');
    assert.equal(buckets.take('a', 3), 0);
    c.advance(5_000);
    assert.equal(buckets.take('a', 50), 0, 'a cost above the burst takes the whole burst');
    assert.equal(buckets.peek('a', 1), 1);
  });
});
