// Issue 44 item 2: the retention purge runs by the engine. A worker creates its task queue's Temporal Schedule; `herald
// retention status|run --wait|pause|resume` reads, triggers and pauses it; a run purges what ended before the retention
// through the worker, and the API then answers 404 for a purged delivery, on a read and on a manual retry.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { HeraldApiError } from '../../src/client/http.js';
import type { DeliveryDoc } from '../../src/store/documents.js';
import { retentionScheduleId } from '../../src/temporal/retention-schedule.js';
import { cli } from '../helpers/cli.js';
import { eventually } from '../helpers/deliveries.js';
import { startDeliveryStack, type DeliveryStack } from '../helpers/delivery-stack.js';
import { seedDoc } from '../helpers/events.js';

describe('herald retention', { timeout: 120_000 }, () => {
  let s: DeliveryStack;
  let env: Record<string, string>;
  before(async () => {
    s = await startDeliveryStack({ env: { HERALD_RETENTION: '1h' } });
    env = {
      TEMPORAL_ADDRESS: s.workerConfig.TEMPORAL_ADDRESS,
      TEMPORAL_NAMESPACE: s.workerConfig.TEMPORAL_NAMESPACE,
      TEMPORAL_TASK_QUEUE: s.workerConfig.TEMPORAL_TASK_QUEUE,
    };
  });
  after(async () => s?.stop());

  const run = async (...args: string[]) => {
    const r = await cli(env, ['retention', ...args, '--timeout', '60']);
    assert.equal(r.code, 0, r.stderr);
    return JSON.parse(r.stdout) as Record<string, unknown>;
  };

  it("status: the worker created its task queue's schedule, running and not paused", async () => {
    const status = await run('status');
    assert.equal(status.scheduleId, retentionScheduleId(s.workerConfig.TEMPORAL_TASK_QUEUE));
    assert.equal(status.paused, false);
    assert.equal(status.everySeconds, 3650 * 86_400);
  });

  it('run --wait purges what ended before the retention through the worker; the API answers 404 for it', async () => {
    // A delivery that succeeded two hours ago (retention 1 h) and one delivered now through the stack.
    const sub = await s.subscribe('/retention');
    const old = seedDoc({ integratorId: s.alice.integratorId, createdAt: new Date(Date.now() - 7_200_000) });
    await s.app.store.events.insertMany([old]);
    const stale: DeliveryDoc = {
      _id: randomUUID(),
      integratorId: s.alice.integratorId,
      subscriptionId: sub.id,
      eventId: old._id,
      eventType: old.eventType,
      status: 'succeeded',
      attemptCount: 1,
      createdAt: old.createdAt,
      updatedAt: old.createdAt,
      nextAttemptAt: null,
      terminalReason: null,
      lastResponseSummary: null,
    };
    await s.app.store.deliveries.insertMany([stale]);
    const fresh = await s.publish();
    const [delivered] = await eventually(async () => {
      const ds = await s.deliveriesOf(fresh, sub.id);
      return ds[0]?.status === 'succeeded' ? ds : undefined;
    }, 30_000);
    assert.equal((await s.alice.client.getDelivery(stale._id)).id, stale._id);

    const report = await run('run', '--wait');
    const result = report.result as Record<string, number | boolean>;
    assert.ok(Number(result.deliveries) >= 1 && Number(result.events) >= 1, JSON.stringify(result));
    assert.equal(result.more, false);
    for (const call of [() => s.alice.client.getDelivery(stale._id), () => s.alice.client.retryDelivery(stale._id)])
      await assert.rejects(call(), (err: unknown) => err instanceof HeraldApiError && err.status === 404);
    assert.equal(await s.app.store.events.findById(old._id), null);
    assert.equal((await s.alice.client.getDelivery(delivered!.id)).status, 'succeeded');

    const status = await run('status');
    const last = status.lastRun as { status: string; result: { deliveries: number } };
    assert.equal(last.status, 'COMPLETED');
    assert.ok(last.result.deliveries >= 1);
  });

  it('pause and resume: the schedule says so', async () => {
    assert.equal((await run('pause', '--note', 'incident')).paused, true);
    const status = await run('status');
    assert.deepEqual([status.paused, status.note], [true, 'incident']);
    assert.equal((await run('resume')).paused, false);
  });

  it('a task queue without a schedule is exit 1, naming why', async () => {
    const r = await cli({ ...env, TEMPORAL_TASK_QUEUE: `none-${randomUUID()}` }, ['retention', 'status']);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /no schedule herald-retention:none-.*a worker of this TEMPORAL_TASK_QUEUE creates it/);
  });
});
