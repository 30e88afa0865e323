import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { coalesce, type ItemResult } from '../../src/store/coalesce.js';

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('group commit of a hot command (coalesce)', () => {
  it('sends the calls of one turn together, then those that arrive while the commands run', async () => {
    const batches: number[][] = [];
    const finish: Array<() => void> = [];
    const call = coalesce(
      (items: number[]) =>
        new Promise<ItemResult<number>[]>((resolve) => {
          batches.push(items);
          finish.push(() => resolve(items.map((n) => ({ ok: true, value: n * 2 }))));
        }),
      { maxInFlight: 1, maxItems: 3 },
    );
    const first = [call(1), call(2)];
    await turn();
    const later = [call(3), call(4), call(5), call(6)];
    await turn();
    assert.deepEqual(batches, [[1, 2]], 'one command in flight: the others wait');
    finish.shift()!();
    await turn();
    assert.deepEqual(batches[1], [3, 4, 5], 'at most maxItems in one command');
    finish.shift()!();
    await turn();
    assert.deepEqual(batches[2], [6]);
    finish.shift()!();
    assert.deepEqual(await Promise.all([...first, ...later]), [2, 4, 6, 8, 10, 12]);
  });

  it("settles each item with its own outcome, and every item with a failed command's error", async () => {
    let fail = false;
    const call = coalesce(
      async (items: string[]): Promise<ItemResult<string>[]> => {
        if (fail) throw new Error('the command failed');
        return items.map((s) =>
          s === 'bad' ? { ok: false, error: new Error(`refused ${s}`) } : { ok: true, value: s },
        );
      },
      { maxInFlight: 2, maxItems: 10 },
    );
    const [good, bad] = await Promise.allSettled([call('good'), call('bad')]);
    assert.deepEqual(good, { status: 'fulfilled', value: 'good' });
    assert.equal(bad?.status, 'rejected');
    fail = true;
    const both = await Promise.allSettled([call('a'), call('b')]);
    assert.deepEqual(
      both.map((r) => r.status),
      ['rejected', 'rejected'],
    );
  });
});
