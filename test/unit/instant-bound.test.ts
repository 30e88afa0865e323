// Date bounds of the listings finer than the millisecond: stored instants are whole milliseconds, so each bound must
// become the millisecond that selects exactly the same instants (issue 33 item 7).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { adminDeliveriesQuery } from '../../src/api/schemas/admin-deliveries.js';
import { listEventsQuery } from '../../src/api/schemas/events.js';

const ms = (iso: string) => Date.parse(iso);
const events = (query: Record<string, string>) => listEventsQuery.parse(query);
const since = (value: string) => adminDeliveriesQuery.parse({ since: value }).since?.getTime();

describe('date bounds finer than the millisecond', () => {
  it('createdBefore (< t) moves up to the next millisecond, createdAfter (> t) keeps its own', () => {
    for (const finer of ['1', '5', '0001', '999999999']) {
      const value = `2026-01-31T12:00:00.123${finer}Z`;
      const parsed = events({ createdBefore: value, createdAfter: value });
      assert.equal(parsed.createdBefore?.getTime(), ms('2026-01-31T12:00:00.124Z'), value);
      assert.equal(parsed.createdAfter?.getTime(), ms('2026-01-31T12:00:00.123Z'), value);
    }
  });

  it('at the millisecond or coarser, a bound is the instant written', () => {
    for (const [value, expected] of [
      ['2026-01-31T12:00:00.123000Z', '2026-01-31T12:00:00.123Z'],
      ['2026-01-31T12:00:00.5Z', '2026-01-31T12:00:00.500Z'],
      ['2026-01-31T12:00:00Z', '2026-01-31T12:00:00.000Z'],
      ['2026-01-31T13:00:00.0000001+01:00', '2026-01-31T12:00:00.001Z'],
    ] as const) {
      assert.equal(events({ createdBefore: value }).createdBefore?.toISOString(), expected, value);
    }
  });

  it('an inclusive lower bound (admin `since`, >= t) moves up too: 12:00:00.0001 admits nothing of 12:00:00.000', () => {
    assert.equal(since('2026-01-31T12:00:00.0001Z'), ms('2026-01-31T12:00:00.001Z'));
    assert.equal(since('2026-01-31T12:00:00.000Z'), ms('2026-01-31T12:00:00.000Z'));
  });
});
