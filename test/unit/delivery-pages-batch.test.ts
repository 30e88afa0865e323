import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { nextBatch } from '../../src/store/listing/index.js';

describe('nextBatch (the deliveries listing read in rounds)', () => {
  it('reads what is missing over the share that passed, with a quarter more', () => {
    // status=succeeded at 70 %: 101 read, 71 passed, 30 missing → 30 / 0.703 × 1.25 ≈ 54, not 202 by doubling.
    assert.equal(nextBatch(30, 101, 71, 101), Math.ceil(((30 * 101) / 71) * 1.25));
    assert.ok(nextBatch(30, 101, 71, 101) < 60);
  });

  it('doubles the last round while no candidate passed', () => {
    assert.equal(nextBatch(101, 101, 0, 101), 202);
    assert.equal(nextBatch(101, 303, 0, 202), 404);
  });

  it('never reads fewer than are missing, nor more than 800 at once', () => {
    assert.equal(nextBatch(50, 100, 100, 100), 63); // everything passed: ⌈50 × 1.25⌉
    assert.equal(nextBatch(1, 100, 100, 100), 2);
    assert.equal(nextBatch(100, 800, 1, 800), 800);
    assert.equal(nextBatch(101, 600, 0, 600), 800);
  });
});
