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

describe('receiver signals in the attempt rule', () => {
  const at = Date.parse('2026-11-23T12:00:00Z');

  it('Retry-After in seconds on 429 and 503 lengthens the wait, never shortens it, never past the cap', () => {
    for (const statusCode of [429, 503]) {
      const wait = (value: string, attemptNumber = 1, retryAfterMaxSeconds?: number) =>
        decideAttempt(
          facts({
            statusCode,
            headers: { 'retry-after': value },
            attemptNumber,
            ...(retryAfterMaxSeconds === undefined ? {} : { retryAfterMaxSeconds }),
          }),
        );
      assert.deepEqual(wait('120'), {
        status: 'pending',
        retryInSeconds: 120,
        terminalReason: null,
        retryAfterSeconds: 120,
      });
      assert.equal(wait('5').retryInSeconds, 30, 'sooner than the schedule: the schedule wins');
      assert.equal(wait('5').retryAfterSeconds, 5, 'what was asked is still told');
      assert.equal(wait('999999').retryInSeconds, 21_600, 'past the default cap (6 h): the cap');
      assert.equal(wait('999999', 1, 600).retryInSeconds, 600, 'a configured cap');
      assert.equal(wait('999999', 6, 600).retryInSeconds, 21_600, 'a schedule step longer than the cap still applies');
      assert.equal(wait('60', 7).status, 'failed', 'the last attempt stays the last');
    }
  });

  it('Retry-After as an HTTP-date is counted from the answer; a past date or garbage asks nothing more', () => {
    const wait = (value: string) =>
      decideAttempt(facts({ statusCode: 503, headers: { 'retry-after': value }, answeredAtMs: at }));
    assert.equal(wait('Mon, 23 Nov 2026 12:10:00 GMT').retryInSeconds, 600);
    assert.equal(wait('Mon, 23 Nov 2026 12:10:00 GMT').retryAfterSeconds, 600);
    assert.equal(wait('Mon, 23 Nov 2026 11:00:00 GMT').retryAfterSeconds, 0);
    assert.equal(wait('Mon, 23 Nov 2026 11:00:00 GMT').retryInSeconds, 30);
    for (const bad of ['soon', '1.5', '-3', '']) {
      assert.deepEqual(wait(bad), { status: 'pending', retryInSeconds: 30, terminalReason: null }, bad);
    }
  });

  it('Retry-After on other statuses is not honoured', () => {
    for (const statusCode of [500, 502, 301, 410]) {
      const verdict = decideAttempt(facts({ statusCode, headers: { 'retry-after': '600' } }));
      assert.equal(verdict.retryInSeconds, 30, String(statusCode));
      assert.equal(verdict.retryAfterSeconds, undefined);
    }
  });

  it('410 Gone pauses the subscription; the delivery follows its schedule', () => {
    assert.deepEqual(decideAttempt(facts({ statusCode: 410 })), {
      status: 'pending',
      retryInSeconds: 30,
      terminalReason: null,
      pause: 'endpoint_gone',
    });
    assert.equal(decideAttempt(facts({ statusCode: 404 })).pause, undefined);
    assert.equal(decideAttempt(facts({ statusCode: 410, attemptNumber: 7 })).pause, 'endpoint_gone');
  });
});
