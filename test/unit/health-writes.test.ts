// The per-subscription ordering and batching of activities/health-writes.ts, over a recording repository (the
// writes themselves against the real server: test/integration/endpoint-health-writes.test.ts).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHealthWrites } from '../../activities/health-writes.js';
import type { EndpointHealthDoc } from '../../src/store/documents.js';

/** A repository whose writes each wait for `release()`, recording what they were asked. */
function recordingRepo() {
  const calls: string[] = [];
  const gates: (() => void)[] = [];
  let failNext = false;
  const gate = () => new Promise<void>((resolve) => gates.push(resolve));
  return {
    calls,
    failNext: () => (failNext = true),
    /** Lets the oldest waiting write finish; resolves once it has. */
    async release() {
      while (gates.length === 0) await new Promise((r) => setImmediate(r));
      gates.shift()!();
      await new Promise((r) => setImmediate(r));
    },
    repo: {
      async failed(id: string, at: Date, count = 1): Promise<EndpointHealthDoc> {
        calls.push(`failed ${id} ${at.getTime()} ×${count}`);
        const fail = failNext;
        failNext = false;
        await gate();
        if (fail) throw new Error('database down');
        return { _id: id, failingSince: at, failures: count, lastSuccessAt: null };
      },
      async succeeded(id: string, at: Date): Promise<void> {
        calls.push(`succeeded ${id} ${at.getTime()}`);
        await gate();
      },
    },
  };
}

describe('health writes: one at a time per subscription, failures batched', () => {
  it('batches failures behind the write in flight, keeps 2xx order, and lanes per subscription', async () => {
    const r = recordingRepo();
    const w = createHealthWrites(r.repo);
    const first = w.failed('a', new Date(1));
    const other = w.failed('b', new Date(1)); // another subscription: not behind a's writes
    await new Promise((res) => setImmediate(res));
    const batched = [w.failed('a', new Date(3)), w.failed('a', new Date(2))];
    const ok = w.succeeded('a', new Date(4));
    const afterOk = w.failed('a', new Date(5));
    assert.deepEqual(r.calls, ['failed a 1 ×1', 'failed b 1 ×1'], 'only the first write of each lane is in flight');
    for (let i = 0; i < 5; i++) await r.release();
    await Promise.all([first, other, ...batched, ok, afterOk]);
    assert.deepEqual(r.calls, [
      'failed a 1 ×1',
      'failed b 1 ×1',
      'failed a 2 ×2', // the two failures that waited: one write, from the earliest
      'succeeded a 4',
      'failed a 5 ×1',
    ]);
    assert.equal((await batched[0]!).failures, 2, 'each failure of a batch answers its write');
    assert.equal(w.busy, 0, 'idle lanes are dropped');
  });

  it('a failed write rejects its batch only; the next one still runs', async () => {
    const r = recordingRepo();
    const w = createHealthWrites(r.repo);
    r.failNext();
    const lost = [w.failed('a', new Date(1)), w.failed('a', new Date(2))];
    await new Promise((res) => setImmediate(res));
    const next = w.failed('a', new Date(3));
    await r.release();
    await r.release();
    for (const p of lost) await assert.rejects(p, /database down/);
    assert.equal((await next).failures, 1);
    assert.equal(w.busy, 0);
  });
});
