// The release's pace (activities/release-page.ts) is a bound on every window, not an average: an attempt that takes
// long holds the next release back, and the time it took is never made up by releasing faster afterwards.
import assert from 'node:assert/strict';
import { performance } from 'node:perf_hooks';
import { describe, it } from 'node:test';
import { createReleasePage } from '../../activities/release-page.js';
import type { Store } from '../../src/store/index.js';

const RATE = 20;
const GAP_MS = 1000 / RATE;

/** A subscription with `count` held deliveries whose attempts take 5 ms each, `slow` ones `slowMs`. */
function fakeStore(count: number, slow: Record<string, number>) {
  const ids = Array.from({ length: count }, (_, i) => `d${i}`);
  const recordedAt = new Map<string, number>();
  const signals: number[] = [];
  const store = {
    subscriptions: { findById: async () => ({ status: 'enabled', deletedAt: null }) },
    deliveries: {
      listHeld: async () => ids.map((id, i) => ({ id, createdAt: new Date(i) })),
      findById: async (id: string) => ({ status: 'pending', held: performance.now() < (recordedAt.get(id) ?? 0) }),
    },
  } as unknown as Store;
  const signalRelease = async (id: string): Promise<boolean> => {
    signals.push(performance.now());
    recordedAt.set(id, performance.now() + (slow[id] ?? 5));
    return true;
  };
  return { store, signalRelease, signals };
}

const gaps = (times: number[]): number[] => times.slice(1).map((t, i) => t - times[i]!);

describe('the release pace', () => {
  it('after a slow attempt, the next releases keep their gap: no burst to catch up', async () => {
    const { store, signalRelease, signals } = fakeStore(10, { d2: 600 });
    const page = await createReleasePage({ store, signalRelease })('s-1', null, 10, RATE);
    assert.equal(page.released, 10);
    for (const [i, gap] of gaps(signals).entries())
      assert.ok(gap >= GAP_MS - 1, `release #${i + 1} went ${gap.toFixed(1)} ms after the one before`);
  });

  it('the next page starts at least one gap after the last release of this one', async () => {
    const { store, signalRelease, signals } = fakeStore(3, { d1: 300 });
    const releasePage = createReleasePage({ store, signalRelease });
    await releasePage('s-1', null, 3, RATE);
    await releasePage('s-1', null, 3, RATE);
    for (const [i, gap] of gaps(signals).entries())
      assert.ok(gap >= GAP_MS - 1, `release #${i + 1} went ${gap.toFixed(1)} ms after the one before`);
  });
});
