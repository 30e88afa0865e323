// A re-ask that its guard would turn away again answers from memory: one write (the wait the API shows), no read.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createAttemptWaits } from '../../activities/attempt-waits.js';
import type { AttemptGate } from '../../src/net/attempt-gate.js';
import type { Store } from '../../src/store/index.js';

const delivery = {
  _id: 'd-1',
  integratorId: 'i-1',
  subscriptionId: 's-1',
  eventId: 'e-1',
  eventType: 'customer.created',
  createdAt: new Date(0),
} as const;
const input = { deliveryId: 'd-1', attemptNumber: 2, actor: 'system', followSchedule: true } as const;

function setup(recheck: AttemptGate['recheck']) {
  const writes: { until: Date; reason: string }[] = [];
  const store = {
    deliveries: { wait: async (_d: unknown, until: Date, reason: string) => void writes.push({ until, reason }) },
  } as unknown as Store;
  const gate = {
    admit: () => assert.fail('not admitted here'),
    recheck,
    waiting: () => ({}),
  } as unknown as AttemptGate;
  const waits = createAttemptWaits({ gate, store, now: () => new Date(1_000) });
  return { waits, writes };
}

describe('attempt waits', () => {
  it('turns away with one write, and answers a re-ask the guard still turns away from memory', async () => {
    const { waits, writes } = setup(() => ({ kind: 'wait', reason: 'endpoint_unresponsive', waitMs: 7_000 }));
    assert.equal(await waits.again(input), null, 'nothing turned away yet: the whole way');
    const verdict = { kind: 'wait', reason: 'endpoint_unresponsive', waitMs: 5_000 } as const;
    assert.deepEqual(await waits.turnAway(delivery, verdict, 2), {
      step: 'wait',
      reason: 'endpoint_unresponsive',
      waitMs: 5_000,
    });
    assert.deepEqual(await waits.again(input), { step: 'wait', reason: 'endpoint_unresponsive', waitMs: 7_000 });
    assert.deepEqual(
      writes.map((w) => w.until.getTime()),
      [6_000, 8_000],
      'each wait written with its own time',
    );
    assert.equal(await waits.again({ ...input, actor: 'manual' }), null, 'an explicit request goes the whole way');
    waits.forget('d-1');
    assert.equal(await waits.again(input), null, 'forgotten once it went');
  });

  it('goes the whole way when the guard would let it go now', async () => {
    const { waits, writes } = setup(() => null);
    await waits.turnAway(delivery, { kind: 'wait', reason: 'integrator_busy', waitMs: 1_000 }, 2);
    assert.equal(await waits.again(input), null);
    assert.equal(writes.length, 1);
  });
});
