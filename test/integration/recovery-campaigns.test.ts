// Issue 15 item 2: recovery campaigns on the real stack (dev server, worker, HTTPS receiver). A window of failed
// deliveries re-delivered at its rate with readable progress; the same window twice is one campaign; pause, resume
// and cancel; the Temporal side (query, current details, search attributes). Records the campaign's replay fixture:
// HERALD_RECORD_HISTORIES=1 npm test -- test/integration/recovery-campaigns.test.ts
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { HeraldApiError } from '../../src/client/http.js';
import { writeHistory } from '../fixtures/histories/history-json.js';
import type { RecoveryCampaign } from '../../src/client/herald-client.js';
import { recoveryWorkflow } from '../../workflows/recovery.js';
import { campaignProgressQuery, campaignWorkflowId, type CampaignInput } from '../../workflows/recovery-messages.js';
import { searchAttributes } from '../../workflows/search-attributes.js';
import { eventually } from '../helpers/deliveries.js';
import { startDeliveryStack, type DeliveryStack } from '../helpers/delivery-stack.js';
import { registerIntegrator } from '../helpers/integrators.js';
import { seedTerminalDeliveries } from '../helpers/seeded-deliveries.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('recovery campaigns', () => {
  let s: DeliveryStack;
  before(async () => {
    s = await startDeliveryStack({ env: { HERALD_RETENTION: '30d' } });
  });
  after(async () => s.stop());

  const seed = async (path: string, n: number, status: 'failed' | 'cancelled', base: number) => {
    const subscription = await s.subscribe(path);
    const ids = await seedTerminalDeliveries(
      s.app.store,
      { id: subscription.id, integratorId: s.alice.integratorId },
      n,
      status,
      base,
    );
    return { subscription, ids };
  };
  const deliveryIdsReceived = (path: string) =>
    s.requestsTo(path).map((r) => String(r.headers['x-service-webhook-delivery-id']));

  it('re-delivers 100 failed deliveries at its rate, oldest first, with progress; the same window is one campaign', async (t) => {
    const base = Date.now();
    const { subscription, ids } = await seed('/recover-100', 100, 'failed', base);
    const window = { since: new Date(base).toISOString(), until: new Date(base + 100).toISOString() };
    const rate = 20;
    const started = await s.alice.client.recoverDeliveries(subscription.id, { ...window, ratePerSecond: rate });
    assert.equal(started.state, 'running');
    assert.deepEqual(started.statuses, ['failed']);

    const again = await s.alice.client.request<RecoveryCampaign>(
      'POST',
      `/v1/webhooks/subscriptions/${subscription.id}/recover`,
      {
        body: { ...window, statuses: ['failed'], ratePerSecond: 50 },
      },
    );
    assert.equal(again.id, started.id, 'the same window names the same campaign');
    assert.equal(again.ratePerSecond, rate, 'the existing campaign, at its own rate');

    const seen: RecoveryCampaign[] = [];
    const final = await eventually(async () => {
      const c = await s.alice.client.getCampaign(started.id);
      seen.push(c);
      await sleep(200);
      return c.state === 'completed' ? c : undefined;
    }, 60_000).catch((err: unknown) => {
      throw new Error(`not completed: ${JSON.stringify(seen.at(-1))} after ${seen.length} reads`, { cause: err });
    });
    assert.equal(final.total, 100);
    assert.equal(final.requested, 100);
    assert.equal(final.succeeded, 100);
    assert.equal(final.done, 100);
    assert.ok(
      seen.some((c) => c.total === 100 && c.requested > 0 && c.requested < 100 && c.done <= c.requested),
      `progress seen part-way: ${JSON.stringify(seen.map((c) => [c.requested, c.done]))}`,
    );
    for (let i = 1; i < seen.length; i++) assert.ok(seen[i]!.requested >= seen[i - 1]!.requested, 'never goes back');

    const received = s.requestsTo('/recover-100');
    const order = deliveryIdsReceived('/recover-100');
    assert.deepEqual([...order].sort(), [...ids].sort(), 'each once');
    // Oldest first, a tick's requests racing one another on the wire.
    order.forEach((id, j) => assert.ok(Math.abs(ids.indexOf(id) - j) < 2 * rate, `${id} received ${j}th`));
    const times = received.map((r) => r.receivedAt);
    const span = times.at(-1)! - times[0]!;
    assert.ok(span >= (99 / rate) * 1000 * 0.9, `paced: 100 re-deliveries over ${span} ms at ${rate}/s`);
    t.diagnostic(`100 re-deliveries received over ${span} ms (${((99 / span) * 1000).toFixed(1)}/s at ${rate}/s)`);
    for (let i = 0; i < times.length; i++) {
      const inTwoSeconds = times.filter((t) => t >= times[i]! && t < times[i]! + 2000).length;
      assert.ok(inTwoSeconds <= 2 * rate + 3, `${inTwoSeconds} POSTs within 2 s at ${rate}/s`);
    }
    const one = await s.alice.client.getDelivery(ids[0]!);
    assert.equal(one.status, 'succeeded');
    assert.deepEqual(
      one.attempts.map((a) => [a.attemptNumber, a.actor]),
      [[2, 'manual']],
      'the manual retry path: the next attempt number',
    );

    // Ended, the window still names the same campaign: nothing is re-delivered twice.
    const afterwards = await s.alice.client.recoverDeliveries(subscription.id, window);
    assert.equal(afterwards.id, started.id);
    assert.equal(afterwards.state, 'completed');
    await sleep(1000);
    assert.equal(s.requestsTo('/recover-100').length, 100);

    // The Temporal UI's view: the query, the current details line and the search attributes.
    const handle = s.app.temporal.client.workflow.getHandle(campaignWorkflowId(started.id));
    const description = await handle.describe();
    assert.equal(description.typedSearchAttributes.get(searchAttributes.subscriptionId), subscription.id);
    assert.equal((await handle.query(campaignProgressQuery)).succeeded, 100);
    // The UI shows the workflow's current details (the metadata query).
    const meta = await handle.query<{ currentDetails?: string }>('__temporal_workflow_metadata');
    assert.match(meta.currentDetails ?? '', /completed.*100 of 100 .* 100 succeeded, 0 failed, 0 skipped/);
  });

  it('pauses, resumes and cancels a campaign of cancelled deliveries; a failed one outside its statuses is left', async () => {
    const base = Date.now();
    const { subscription, ids } = await seed('/recover-pause', 30, 'cancelled', base);
    const [failedId] = await seedTerminalDeliveries(
      s.app.store,
      { id: subscription.id, integratorId: s.alice.integratorId },
      1,
      'failed',
      base + 10,
    );
    const client = s.alice.client;
    const c = await client.recoverDeliveries(subscription.id, {
      since: new Date(base).toISOString(),
      statuses: ['cancelled'],
      ratePerSecond: 4,
    });
    await eventually(async () => ((await client.getCampaign(c.id)).requested >= 3 ? true : undefined), 20_000);
    const paused = await client.controlCampaign(c.id, 'pause');
    assert.equal(paused.state, 'paused');
    assert.equal((await client.controlCampaign(c.id, 'pause')).state, 'paused', 'idempotent');
    await sleep(1000); // a request under way when it paused lands
    const whilePaused = s.requestsTo('/recover-pause').length;
    await sleep(2000);
    assert.equal(s.requestsTo('/recover-pause').length, whilePaused, 'nothing re-delivered while paused');
    assert.equal((await client.getCampaign(c.id)).state, 'paused');

    assert.equal((await client.controlCampaign(c.id, 'resume')).state, 'running');
    await eventually(() => (s.requestsTo('/recover-pause').length >= whilePaused + 2 ? true : undefined), 10_000);
    const cancelled = await client.controlCampaign(c.id, 'cancel');
    assert.equal(cancelled.state, 'cancelled');
    await sleep(1500);
    const atCancel = s.requestsTo('/recover-pause').length;
    await sleep(1500);
    assert.equal(s.requestsTo('/recover-pause').length, atCancel, 'nothing more after the cancel');
    const final = await client.getCampaign(c.id);
    assert.equal(final.state, 'cancelled');
    assert.ok(final.requested < 30 && final.requested === atCancel, JSON.stringify(final));
    assert.equal(final.total, 30);
    assert.deepEqual(
      [...deliveryIdsReceived('/recover-pause')].sort(),
      ids.slice(0, atCancel).sort(),
      'the oldest ones, each once; the failed one not',
    );
    assert.equal((await client.getDelivery(failedId!)).status, 'failed');

    assert.equal((await client.controlCampaign(c.id, 'cancel')).state, 'cancelled', 'cancel is idempotent');
    const handle = s.app.temporal.client.workflow.getHandle(campaignWorkflowId(c.id));
    assert.equal((await handle.result()).state, 'cancelled');
    // The replay fixture of the campaign workflow (docs/upgrade-workflow.md, "Versioning the delivery workflow").
    if (process.env.HERALD_RECORD_HISTORIES)
      await writeHistory('recovery-pause-resume-cancel', await handle.fetchHistory());
    for (const control of ['pause', 'resume'] as const) {
      await assert.rejects(client.controlCampaign(c.id, control), (err: unknown) => {
        assert.ok(err instanceof HeraldApiError);
        assert.equal(err.status, 409);
        assert.equal(err.body?.error, 'campaign_finished');
        return true;
      });
    }
  });

  it('pages through more than one page of candidates and continues as new, its progress carried over', async () => {
    const base = Date.now();
    const { subscription, ids } = await seed('/recover-long', 150, 'failed', base);
    const campaignId = randomUUID();
    const input: CampaignInput = {
      campaignId,
      integratorId: s.alice.integratorId,
      window: {
        subscriptionId: subscription.id,
        since: new Date(base).toISOString(),
        until: new Date(base + 1000).toISOString(),
        statuses: ['failed'],
      },
      ratePerSecond: 100,
      maxHistoryEvents: 10, // continue as new at the first page boundary
    };
    const handle = await s.app.temporal.client.workflow.start(recoveryWorkflow, {
      taskQueue: s.workerConfig.TEMPORAL_TASK_QUEUE,
      workflowId: campaignWorkflowId(campaignId),
      args: [input],
      memo: { integratorId: s.alice.integratorId },
    });
    const final = await eventually(async () => {
      const c = await s.alice.client.getCampaign(campaignId);
      return c.state === 'completed' ? c : undefined;
    }, 60_000);
    assert.deepEqual(
      [final.total, final.requested, final.succeeded, final.done],
      [150, 150, 150, 150],
      'counts carried across runs',
    );
    const firstRun = s.app.temporal.client.workflow.getHandle(handle.workflowId, handle.firstExecutionRunId);
    const events = (await firstRun.fetchHistory()).events ?? [];
    assert.ok(
      events.some((e) => e.workflowExecutionContinuedAsNewEventAttributes),
      'the first run continued as new',
    );
    assert.deepEqual([...deliveryIdsReceived('/recover-long')].sort(), [...ids].sort(), 'each once across runs');
  });

  it("keeps a window's sub-millisecond digits: each bound selects the stored instants the given one does", async () => {
    const base = Date.now() - 60_000;
    const { subscription, ids } = await seed('/recover-fraction', 4, 'failed', base);
    // since …000.0001 ms after base: base itself is before it; until …0001 after base + 2: base + 2 is before it.
    const finer = (ms: number) => new Date(ms).toISOString().replace('Z', '0001Z');
    const c = await s.alice.client.recoverDeliveries(subscription.id, { since: finer(base), until: finer(base + 2) });
    assert.deepEqual([c.since, c.until], [new Date(base + 1).toISOString(), new Date(base + 3).toISOString()]);
    const done = await eventually(async () => {
      const now = await s.alice.client.getCampaign(c.id);
      return now.state === 'completed' ? now : undefined;
    }, 30_000);
    assert.equal(done.total, 2);
    assert.deepEqual(deliveryIdsReceived('/recover-fraction').sort(), [ids[1], ids[2]].sort());
  });

  it('answers 404 for a campaign of another integrator or none, and 400 for an empty window', async () => {
    const { subscription } = await seed('/recover-errors', 1, 'failed', Date.now());
    const c = await s.alice.client.recoverDeliveries(subscription.id, { since: new Date().toISOString() });
    const bob = await registerIntegrator(s.app, s.baseUrl, 'bob-recover');
    for (const attempt of [
      () => bob.client.getCampaign(c.id),
      () => bob.client.controlCampaign(c.id, 'cancel'),
      () => s.alice.client.getCampaign('8f14e45f-ceea-467f-a0e6-bb6d4d2b0e0a'),
      () => bob.client.recoverDeliveries(subscription.id, { since: new Date().toISOString() }),
    ])
      await assert.rejects(attempt(), (err: unknown) => err instanceof HeraldApiError && err.status === 404);
    const now = new Date().toISOString();
    await assert.rejects(
      s.alice.client.recoverDeliveries(subscription.id, { since: now, until: now }),
      (err: unknown) => err instanceof HeraldApiError && err.status === 400 && err.body?.error === 'invalid_window',
    );
    // A window that starts before what Herald keeps (HERALD_RETENTION, 30 days by default) names the retention.
    await assert.rejects(
      s.alice.client.recoverDeliveries(subscription.id, {
        since: new Date(Date.now() - 31 * 86_400_000).toISOString(),
      }),
      (err: unknown) =>
        err instanceof HeraldApiError &&
        err.status === 400 &&
        err.body?.error === 'outside_retention' &&
        /HERALD_RETENTION/.test(String(err.body?.message)),
    );
  });
});
