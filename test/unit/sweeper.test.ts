import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createSweeper } from '../../src/delivery/sweeper.js';
import type { FanOut } from '../../src/delivery/fan-out.js';
import type { EventDoc } from '../../src/store/documents.js';
import type { Store } from '../../src/store/index.js';

const event = (id: string) => ({ _id: id }) as EventDoc;

describe('hand-off sweeper', () => {
  it('files and hands off every stale event older than the grace period, carrying on past one that fails', async () => {
    let asked: Date | undefined;
    const indexed: string[] = [];
    const store = {
      events: {
        findNotFannedOut: async (before: Date) => ((asked = before), [event('a'), event('bad'), event('c')]),
        index: async (e: EventDoc) => void indexed.push(e._id),
      },
    } as unknown as Store;
    const handed: string[] = [];
    const errors: unknown[] = [];
    const fanOut: FanOut = {
      handOff: async (e) => {
        if (e._id === 'bad') throw new Error('boom');
        handed.push(e._id);
        return 1;
      },
    };
    const sweeper = createSweeper({ store, fanOut, graceMs: 30_000, onError: (err) => errors.push(err) });
    const now = new Date('2026-01-01T00:01:00Z');
    assert.equal(await sweeper.sweepOnce(now), 2);
    assert.deepEqual(handed, ['a', 'c']);
    assert.deepEqual(indexed, ['a', 'bad', 'c'], 'the listing write is repeated before each hand-off');
    assert.equal(errors.length, 1);
    assert.equal(asked?.toISOString(), '2026-01-01T00:00:30.000Z');
  });
});
