// The purge's duty cycle (src/retention/purge-integrator.ts, restAfter): after a batch that worked t, it rests
// t × (1 / duty − 1), never less than the configured pause.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { performance } from 'node:perf_hooks';
import { restAfter } from '../../src/retention/purge-integrator.js';

async function rested(pace: { pauseMs: number; duty: number }, workedMs: number): Promise<number> {
  const startedAt = performance.now() - workedMs;
  const from = performance.now();
  await restAfter(pace, startedAt);
  return performance.now() - from;
}

describe('the purge pace', () => {
  it('rests as long as it worked at duty 0.5, three times as long at 0.25', async () => {
    const half = await rested({ pauseMs: 0, duty: 0.5 }, 120);
    assert.ok(half >= 115 && half < 400, `${half} ms`);
    const quarter = await rested({ pauseMs: 0, duty: 0.25 }, 60);
    assert.ok(quarter >= 175 && quarter < 500, `${quarter} ms`);
  });

  it('rests at least the pause, and only the pause at duty 1', async () => {
    const least = await rested({ pauseMs: 150, duty: 0.5 }, 10);
    assert.ok(least >= 145, `${least} ms`);
    const full = await rested({ pauseMs: 0, duty: 1 }, 500);
    assert.ok(full < 100, `${full} ms`);
  });
});
