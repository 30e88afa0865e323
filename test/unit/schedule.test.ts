import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  MAX_ATTEMPTS,
  RETRY_DELAYS_SECONDS,
  attemptOffsetSeconds,
  retryDelayAfter,
  scheduleOffsetsSeconds,
} from '../../src/domain/retry-schedule.js';

describe('retry schedule (spec §6.6)', () => {
  it('waits 30 s, 60 s, 5 min, 30 min, 2 h, 6 h between 7 attempts', () => {
    assert.deepEqual(RETRY_DELAYS_SECONDS, [30, 60, 5 * 60, 30 * 60, 2 * 3600, 6 * 3600]);
    assert.equal(MAX_ATTEMPTS, 7);
    assert.equal(MAX_ATTEMPTS, RETRY_DELAYS_SECONDS.length + 1);
  });

  it('gives the delay after each failed attempt, and null after the 7th', () => {
    assert.deepEqual([1, 2, 3, 4, 5, 6, 7].map(retryDelayAfter), [30, 60, 300, 1800, 7200, 21600, null]);
    assert.equal(retryDelayAfter(8), null);
    assert.equal(retryDelayAfter(100), null);
  });

  it('rejects attempt numbers that are not positive integers', () => {
    for (const n of [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) {
      assert.equal(retryDelayAfter(n), null, String(n));
      assert.equal(attemptOffsetSeconds(n), null, String(n));
    }
  });

  it('places the attempts at +0, 30, 90, 390, 2190, 9390, 30990 s', () => {
    assert.deepEqual(scheduleOffsetsSeconds(), [0, 30, 90, 390, 2190, 9390, 30990]);
    assert.equal(attemptOffsetSeconds(1), 0);
    assert.equal(attemptOffsetSeconds(7), 8 * 3600 + 36 * 60 + 30);
    assert.equal(attemptOffsetSeconds(8), null);
  });

  it('offsets are the running sum of the delays', () => {
    for (let n = 2; n <= MAX_ATTEMPTS; n++) {
      assert.equal(attemptOffsetSeconds(n), (attemptOffsetSeconds(n - 1) ?? 0) + (retryDelayAfter(n - 1) ?? 0));
    }
  });
});
