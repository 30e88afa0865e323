import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createIngestGate } from '../../src/api/ingest-gate.js';
import { HttpError } from '../../src/api/errors.js';

const tick = () => new Promise((r) => setImmediate(r));

describe('the ingest gate', () => {
  it('admits up to its concurrency, queues up to its queue, sheds the rest with 503 overloaded + Retry-After', async () => {
    const gate = createIngestGate({ concurrency: 2, queue: 1, retryAfterSec: 2 });
    const a = await gate.enter();
    const b = await gate.enter();
    assert.ok(a && b);
    const queued = gate.enter();
    await tick();
    assert.deepEqual([gate.running, gate.waiting], [2, 1]);
    await assert.rejects(gate.enter(), (err: unknown) => {
      assert.ok(err instanceof HttpError);
      assert.deepEqual(err.toBody(), { error: 'overloaded', status: 503 });
      assert.deepEqual(err.headers, { 'retry-after': '2' });
      return true;
    });
    a();
    const c = await queued; // the released slot went to the waiting one
    assert.ok(c);
    assert.deepEqual([gate.running, gate.waiting], [2, 0]);
    a(); // a second release of the same slot changes nothing
    assert.equal(gate.running, 2);
    b();
    c();
    assert.equal(gate.running, 0);
  });

  it('serves the queue in arrival order and skips a waiter whose client left', async () => {
    const gate = createIngestGate({ concurrency: 1, queue: 3 });
    const first = await gate.enter();
    const order: string[] = [];
    const left = gate.enter(() => true).then((s) => (order.push(`left:${s === null}`), s));
    const second = gate.enter().then((s) => (order.push('second'), s));
    await tick();
    first!();
    assert.equal(await left, null);
    const s = await second;
    assert.deepEqual(order, ['left:true', 'second']);
    assert.deepEqual([gate.running, gate.waiting], [1, 0]);
    s!();
    assert.equal(gate.running, 0);
  });

  it('sheds a waiter that got no slot within maxWaitMs, and frees its place in the queue', async () => {
    const gate = createIngestGate({ concurrency: 1, queue: 1, maxWaitMs: 50 });
    const first = await gate.enter();
    const t = Date.now();
    await assert.rejects(gate.enter(), (err: unknown) => err instanceof HttpError && err.status === 503);
    assert.ok(Date.now() - t >= 45);
    assert.equal(gate.waiting, 0);
    const next = gate.enter(); // the queue has room again
    first!();
    const s = await next;
    assert.ok(s);
    s();
    assert.equal(gate.running, 0);
  });

  it("serves waiting integrators in turn: one integrator's burst does not go before another's ingest", async () => {
    const gate = createIngestGate({ concurrency: 1, queue: 100 });
    const running = await gate.enter(undefined, 'a');
    const order: string[] = [];
    const wait = (key: string, n: number) =>
      gate.enter(undefined, key).then((leave) => {
        order.push(`${key}${n}`);
        leave!();
      });
    const burst = [1, 2, 3, 4].map((n) => wait('a', n));
    await tick();
    const other = wait('b', 1);
    await tick();
    running!();
    await Promise.all([...burst, other]);
    assert.deepEqual(order, ['a1', 'b1', 'a2', 'a3', 'a4']);
  });

  it('lets no integrator hold more than half of the queue', async () => {
    const gate = createIngestGate({ concurrency: 1, queue: 4, maxWaitMs: 1_000 });
    const running = await gate.enter(undefined, 'a');
    const served = (entered: Promise<(() => void) | null>) => entered.then((leave) => leave!());
    const queued = [served(gate.enter(undefined, 'a')), served(gate.enter(undefined, 'a'))];
    await tick();
    await assert.rejects(gate.enter(undefined, 'a'), (err: unknown) => err instanceof HttpError && err.status === 503);
    const other = served(gate.enter(undefined, 'b')); // room for another integrator
    await tick();
    assert.equal(gate.waiting, 3);
    running!();
    await Promise.all([...queued, other]);
    assert.equal(gate.running, 0);
  });

  it("runs at most perKeyConcurrency of one integrator's ingests, keeping the other slots for the others", async () => {
    const gate = createIngestGate({ concurrency: 4, queue: 100, perKeyConcurrency: 2 });
    const a1 = await gate.enter(undefined, 'a');
    const a2 = await gate.enter(undefined, 'a');
    let a3: (() => void) | null = null;
    const third = gate.enter(undefined, 'a').then((leave) => (a3 = leave));
    await tick();
    assert.deepEqual([gate.running, gate.waiting, a3], [2, 1, null]); // a free slot, but not for a third of A's
    const b1 = await gate.enter(undefined, 'b'); // B is admitted at once
    const b2 = await gate.enter(undefined, 'b');
    assert.deepEqual([gate.running, gate.waiting], [4, 1]);
    b1!(); // B's slot is freed, not handed to A's waiting third
    await tick();
    assert.deepEqual([gate.running, gate.waiting, a3], [3, 1, null]);
    a1!(); // one of A's ends: its waiting third takes that slot
    await third;
    assert.ok(a3);
    assert.deepEqual([gate.running, gate.waiting], [3, 0]);
    for (const leave of [a2, b2, a3 as (() => void) | null]) leave!();
    assert.equal(gate.running, 0);
  });
});
