// The hourly attempt stats kept by the worker: latency buckets and their quantiles, and the buffer that sums recorded
// attempts in memory and writes them at most once a flush interval (a failed write added back, never lost or doubled).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MongoBulkWriteError } from 'mongodb';
import { createAttemptStats } from '../../activities/attempt-stats.js';
import { LATENCY_BUCKET_EDGES_MS, latencyBucketOf, latencyQuantile } from '../../src/domain/latency-buckets.js';
import type { StatsIncrement } from '../../src/store/attempt-stats-repo.js';

const HOUR = 3_600_000;
const T = Date.UTC(2026, 10, 28, 10);
const attempt = (outcome: 'succeeded' | 'http_error' | 'blocked', latencyMs: number, at = T + 1_000) => ({
  integratorId: 'acme',
  outcome,
  latencyMs,
  createdAt: new Date(at),
});

describe('latency buckets', () => {
  it('puts a latency in the first bucket whose edge holds it, above every edge in the last', () => {
    assert.equal(latencyBucketOf(0), 0);
    assert.equal(latencyBucketOf(25), 0);
    assert.equal(latencyBucketOf(26), 1);
    assert.equal(latencyBucketOf(10_000), LATENCY_BUCKET_EDGES_MS.length - 1);
    assert.equal(latencyBucketOf(10_001), LATENCY_BUCKET_EDGES_MS.length);
  });

  it('answers a quantile as the edge of the bucket that holds it, never above the maximum', () => {
    // 90 answers ≤ 50 ms, 10 between 250 and 500 ms, the longest 480 ms.
    const buckets = { '1': 90, '4': 10 };
    assert.equal(latencyQuantile(buckets, 0.5, 480), 50);
    assert.equal(latencyQuantile(buckets, 0.9, 480), 50);
    assert.equal(latencyQuantile(buckets, 0.95, 480), 480, 'the bucket edge (500) is above the maximum seen');
    assert.equal(latencyQuantile({ '9': 3 }, 0.5, 12_345), 12_345, 'above every edge: the maximum');
    assert.equal(latencyQuantile({}, 0.5, 0), null);
  });
});

describe('attempt stats buffer', () => {
  const fakeRepo = (fail: (batch: number) => Error | null = () => null) => {
    const writes: StatsIncrement[][] = [];
    return {
      writes,
      repo: {
        add: async (items: readonly StatsIncrement[]) => {
          const err = fail(writes.length);
          writes.push(items.map((i) => structuredClone(i)));
          if (err) throw err;
        },
      },
    };
  };

  it('sums attempts per subscription and hour into one write each', async () => {
    const { writes, repo } = fakeRepo();
    const stats = createAttemptStats({ repo, logError: () => {}, flushEveryMs: 60_000 });
    stats.add('sub-a', attempt('succeeded', 20));
    stats.add('sub-a', attempt('http_error', 300));
    stats.add('sub-a', attempt('blocked', 0));
    stats.add('sub-a', attempt('succeeded', 40, T + HOUR + 5));
    stats.add('sub-b', attempt('succeeded', 7));
    assert.equal(writes.length, 0, 'nothing written before the flush');
    await stats.flush();
    assert.equal(writes.length, 1);
    const byKey = new Map(writes[0]!.map((w) => [`${w.subscriptionId}|${w.hour}`, w]));
    assert.deepEqual(byKey.get(`sub-a|${T}`), {
      integratorId: 'acme',
      subscriptionId: 'sub-a',
      hour: T,
      attempts: 3,
      succeeded: 1,
      latencySumMs: 320,
      latencyMaxMs: 300,
      l: { '0': 1, '4': 1 },
    });
    assert.equal(byKey.get(`sub-a|${T + HOUR}`)?.attempts, 1, 'the next hour apart');
    assert.equal(byKey.get(`sub-b|${T}`)?.succeeded, 1);
    await stats.flush();
    assert.equal(writes.length, 1, 'nothing left to write');
  });

  it('writes on its own after the flush interval', async () => {
    const { writes, repo } = fakeRepo();
    const stats = createAttemptStats({ repo, logError: () => {}, flushEveryMs: 20 });
    stats.add('sub-a', attempt('succeeded', 20));
    await new Promise((resolve) => setTimeout(resolve, 80));
    assert.equal(writes.length, 1);
    assert.equal(writes[0]![0]!.attempts, 1);
  });

  it('adds back what a failed write did not write, and only that', async () => {
    const logged: string[] = [];
    const partial = (): Error => {
      const err = Object.create(MongoBulkWriteError.prototype) as MongoBulkWriteError;
      Object.defineProperty(err, 'writeErrors', { value: [{ index: 1 }] });
      Object.defineProperty(err, 'message', { value: 'one write failed' });
      return err;
    };
    const { writes, repo } = fakeRepo((n) => (n === 0 ? partial() : n === 1 ? new Error('connection reset') : null));
    const stats = createAttemptStats({ repo, logError: (m) => logged.push(m), flushEveryMs: 60_000 });
    stats.add('sub-a', attempt('succeeded', 20));
    stats.add('sub-b', attempt('succeeded', 20));
    await stats.flush(); // sub-b's increment failed alone
    stats.add('sub-b', attempt('http_error', 30));
    await stats.flush(); // the whole batch failed (no answer): all of it is added back
    await stats.flush();
    assert.equal(writes.length, 3);
    assert.deepEqual(
      writes[2]!.map((w) => [w.subscriptionId, w.attempts, w.succeeded]),
      [['sub-b', 2, 1]],
      "sub-a's written increment is not added again; sub-b's two attempts are written once",
    );
    assert.equal(logged.length, 2);
  });

  it('drops what it carries after writes failed six times in a row, and counts again after', async () => {
    const logged: string[] = [];
    const { writes, repo } = fakeRepo((n) => (n < 6 ? new Error('client closed') : null));
    const stats = createAttemptStats({ repo, logError: (m) => logged.push(m), flushEveryMs: 60_000 });
    stats.add('sub-a', attempt('succeeded', 20));
    for (let n = 0; n < 6; n++) await stats.flush();
    assert.equal(writes.length, 6);
    assert.equal(logged.at(-1), 'attempt stats dropped after failed writes');
    await stats.flush();
    assert.equal(writes.length, 6, 'nothing left to write');
    stats.add('sub-a', attempt('http_error', 20));
    await stats.flush();
    assert.deepEqual(
      writes[6]!.map((w) => [w.attempts, w.succeeded]),
      [[1, 0]],
    );
  });
});
