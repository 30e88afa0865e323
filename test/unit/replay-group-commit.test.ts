// The shared replay store's group commit (src/store/expiring-repo.ts), with a fake collection whose inserts finish
// only when the test says so: at most two inserts in flight, and every digest that arrives meanwhile goes out in the
// next one. The real store over the real server is proven by test/integration/replay-shared.test.ts.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Db } from 'mongodb';
import { createExpiringRepo } from '../../src/store/expiring-repo.js';

function fakeDb() {
  const batches: string[][] = [];
  const finish: Array<() => void> = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const collection = {
    insertMany(docs: Array<{ _id: string }>) {
      batches.push(docs.map((d) => d._id));
      maxInFlight = Math.max(maxInFlight, ++inFlight);
      return new Promise<void>((resolve) =>
        finish.push(() => {
          inFlight--;
          resolve();
        }),
      );
    },
  };
  const db = { collection: () => collection } as unknown as Db;
  return { db, batches, finish, maxInFlight: () => maxInFlight };
}

const turn = () => new Promise((r) => setImmediate(r));

describe('shared replay store: group commit', () => {
  it('keeps two inserts in flight and batches every digest that arrives meanwhile into the next', async () => {
    const fake = fakeDb();
    const repo = createExpiringRepo(fake.db);
    const expiresAt = new Date(Date.now() + 60_000);
    const answers: Array<Promise<boolean>> = [];
    for (let w = 0; w < 10; w++) {
      for (let i = 0; i < 3; i++) answers.push(repo.firstUse(`d-${w}-${i}`, expiresAt));
      await turn();
    }
    assert.equal(fake.batches.length, 2, 'waves 1 and 2 went out, the other eight wait');
    assert.deepEqual(fake.batches[0], ['d-0-0', 'd-0-1', 'd-0-2']);
    fake.finish.shift()!();
    await turn();
    assert.equal(fake.batches.length, 3);
    assert.equal(fake.batches[2]!.length, 24, 'the eight waiting waves in one insert');
    while (fake.finish.length > 0) {
      fake.finish.shift()!();
      await turn();
    }
    assert.deepEqual(await Promise.all(answers), Array<boolean>(30).fill(true));
    assert.equal(fake.maxInFlight(), 2);
  });
});
