// Issue 45 item 3: each integrator's listing pages examine at most HERALD_LISTING_SCAN_RATE rows a second in a process
// (src/store/listing/scan-pace.ts), on a fake clock: a second's worth at once, then the wait the rows ahead ask for;
// each integrator has its own pace; the map stays bounded. And a page's budget waits for it no longer than its time.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createScanPace, scanBudget } from '../../src/store/listing/index.js';
import { fakeClock } from '../helpers/fake-clock.js';

const clock = fakeClock;

describe('the listing scan pace', () => {
  it('lets a second of rows through at once, then asks the reader to wait for what it read beyond', () => {
    const c = clock();
    const pace = createScanPace(1_000, c.now);
    pace.spend('a', 1_000);
    assert.equal(pace.waitMs('a'), 0, 'a second of rows');
    pace.spend('a', 500);
    assert.equal(pace.waitMs('a'), 500, '500 rows ahead at 1,000 a second');
    c.advance(200);
    assert.equal(pace.waitMs('a'), 300, 'paid off as time passes');
    c.advance(5_000);
    assert.equal(pace.waitMs('a'), 0);
    pace.spend('a', 1_000);
    assert.equal(pace.waitMs('a'), 0, 'no credit saved up beyond a second');
  });

  it('keeps each integrator to its own pace, in a bounded map', () => {
    const c = clock();
    const pace = createScanPace(100, c.now, 3);
    pace.spend('a', 400);
    assert.equal(pace.waitMs('a'), 3_000);
    assert.equal(pace.waitMs('b'), 0, 'another integrator waits for nothing');
    for (const id of ['b', 'c', 'd']) pace.spend(id, 10);
    assert.equal(pace.waitMs('a'), 0, 'the least recently used dropped first');
    assert.equal(pace.waitMs('d'), 0);
  });

  it('makes a page wait between reads while its integrator is ahead, never past the page time', async () => {
    const pace = createScanPace(100);
    const budget = scanBudget({ scanRows: 1e6, timeMs: 120, pace }, 'a');
    budget.spend(150); // 50 rows ahead: 500 ms at 100 a second, more than the page's 120 ms
    const started = performance.now();
    await budget.paced();
    const waited = performance.now() - started;
    assert.ok(waited >= 100 && waited < 400, `waited ${waited} ms`);
    assert.ok(budget.spent(), 'then the page is out of time: it answers with a cursor');
    const other = scanBudget({ scanRows: 1e6, timeMs: 120, pace }, 'b');
    const t = performance.now();
    await other.paced();
    assert.ok(performance.now() - t < 50, 'another integrator does not wait');
  });
});
