import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { decideAttempt, type AttemptFacts } from '../../src/domain/attempt-rule.js';
import { MAX_ATTEMPTS, RETRY_DELAYS_SECONDS } from '../../src/domain/retry-schedule.js';

const facts = (more: Partial<AttemptFacts>): AttemptFacts => ({
  outcome: 'http_error',
  statusCode: 500,
  headers: {},
  attemptNumber: 1,
  followSchedule: true,
  ...more,
});

describe('the attempt rule', () => {
  it('any 2xx succeeds, on any attempt and in any run', () => {
    for (const followSchedule of [true, false]) {
      const verdict = decideAttempt(facts({ outcome: 'succeeded', statusCode: 201, attemptNumber: 9, followSchedule }));
      assert.deepEqual(verdict, { status: 'succeeded', retryInSeconds: null, terminalReason: null });
    }
  });

  it('a failure waits the scheduled delay after attempts 1–6, then the 7th fails the delivery', () => {
    const waits = Array.from({ length: MAX_ATTEMPTS }, (_, i) => decideAttempt(facts({ attemptNumber: i + 1 })));
    assert.deepEqual(
      waits.map((v) => v.retryInSeconds),
      [...RETRY_DELAYS_SECONDS, null],
    );
    assert.ok(waits.slice(0, 6).every((v) => v.status === 'pending' && v.terminalReason === null));
    assert.deepEqual(waits[6], { status: 'failed', retryInSeconds: null, terminalReason: 'retries_exhausted' });
  });

  it('every failure outcome counts the same (3xx, timeouts, refused, blocked), whatever the headers', () => {
    const outcomes = ['http_error', 'timeout', 'connection_error', 'blocked'] as const;
    for (const outcome of outcomes) {
      const verdict = decideAttempt(facts({ outcome, statusCode: null, headers: { 'retry-after': '5' } }));
      assert.deepEqual(verdict, { status: 'pending', retryInSeconds: 30, terminalReason: null }, outcome);
    }
  });

  it('a run that follows no schedule (a manual re-run) fails on its one failed attempt', () => {
    const verdict = decideAttempt(facts({ attemptNumber: 3, followSchedule: false, statusCode: 302 }));
    assert.deepEqual(verdict, { status: 'failed', retryInSeconds: null, terminalReason: 'retries_exhausted' });
  });
});
