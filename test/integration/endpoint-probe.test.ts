// The endpoint probe end to end on the real servers (dev Temporal server, MongoDB-wire server, worker, HTTPS
// receiver), HERALD_HEALTH_PROBE_SECONDS=1: an endpoint Herald paused is probed each second with a signed
// webhook.test POST (no event, no delivery stored) and resumed at its first 2xx, its held deliveries then delivered
// (docs/subscriptions.md, "Endpoint probe"). With the probe off (subscription-pause.test.ts) nothing resumes.
// Record the replay fixture: HERALD_RECORD_HISTORIES=1 npm test -- test/integration/endpoint-probe.test.ts
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { WEBHOOK_HEADERS } from '../../src/crypto/webhook-signature.js';
import { subscriptionPausedEvent } from '../../src/delivery/auto-pause.js';
import { createStartProbe } from '../../src/delivery/endpoint-probe.js';
import { writeHistory } from '../fixtures/histories/history-json.js';
import { eventually } from '../helpers/deliveries.js';
import { startDeliveryStack, type DeliveryStack } from '../helpers/delivery-stack.js';
import { probeWorkflowId } from '../../workflows/messages.js';
import { probeWorkflow } from '../../workflows/probe.js';

describe('endpoint probe (dev server, worker, HTTPS receiver)', () => {
  let s: DeliveryStack;
  before(async () => {
    s = await startDeliveryStack({
      env: {
        HERALD_HEALTH_PAUSE_AFTER_SECONDS: '1',
        HERALD_HEALTH_PAUSE_MIN_FAILURES: '2',
        HERALD_HEALTH_PROBE_SECONDS: '1',
      },
    });
  });
  after(async () => s.stop());

  const typeOf = (body: Buffer) =>
    JSON.parse(body.toString('utf8')) as { eventType: string; data: { probe?: boolean } };

  it('probes a paused failing endpoint, resumes it at its first 2xx and delivers what was held', async () => {
    s.answers.set('/probed', 500);
    const sub = await s.subscribe('/probed', ['customer.rejected']);
    const firstEvent = await s.publish('customer.rejected');
    const [first] = await eventually(async () => {
      const found = await s.deliveriesOf(firstEvent, sub.id);
      return found[0]?.attemptCount === 1 ? found : undefined;
    });
    await new Promise((r) => setTimeout(r, 1_100)); // HERALD_HEALTH_PAUSE_AFTER_SECONDS=1
    await s.alice.client.retryDelivery(first!.id); // the second failure pauses it
    const paused = await eventually(async () => {
      const found = await s.alice.client.getSubscription(sub.id);
      return found.status === 'paused' ? found : undefined;
    });
    assert.equal(paused.pausedReason, 'endpoint_unhealthy');
    // Its operational event is stored (by an id derived from the paused version), though never listed. The pause is
    // written first and the event after it (src/delivery/auto-pause.ts), so the event may trail the status a moment.
    const pausedDoc = await s.app.store.subscriptions.findById(sub.id);
    const pausedEvent = await eventually(() =>
      s.app.store.events
        .findForIntegrator(s.alice.integratorId, subscriptionPausedEvent(pausedDoc!)._id)
        .then((e) => e ?? undefined),
    );
    assert.equal(pausedEvent?.eventType, 'webhook.subscription_paused');
    const heldEvent = await s.publish('customer.rejected');

    // While the endpoint still fails: signed probes, the subscription stays paused.
    const probes = () => s.requestsTo('/probed').filter((r) => typeOf(r.body).data.probe === true);
    await eventually(() => (probes().length >= 2 ? true : undefined));
    const probe = probes()[0]!;
    assert.equal(typeOf(probe.body).eventType, 'webhook.test');
    for (const h of [WEBHOOK_HEADERS.signature, WEBHOOK_HEADERS.timestamp, WEBHOOK_HEADERS.keyId])
      assert.ok(probe.headers[h.toLowerCase()], h);
    assert.equal((await s.alice.client.getSubscription(sub.id)).status, 'paused');
    const handle = s.app.temporal.client.workflow.getHandle(probeWorkflowId(sub.id));
    const running = await handle.describe();
    assert.equal(running.status.name, 'RUNNING');
    // A second start (a second pause while probing) starts nothing: the same run goes on.
    const client = s.app.temporal.client;
    await createStartProbe({ client, taskQueue: s.workerConfig.TEMPORAL_TASK_QUEUE, intervalSeconds: 1 })(sub.id);
    assert.equal((await handle.describe()).runId, running.runId);

    // The endpoint recovers: resumed within a few seconds, the held deliveries delivered.
    s.answers.set('/probed', 204);
    const resumed = await eventually(async () => {
      const found = await s.alice.client.getSubscription(sub.id);
      return found.status === 'enabled' ? found : undefined;
    });
    assert.equal(resumed.pausedReason, null);
    assert.deepEqual(await handle.result(), { outcome: 'resumed' });
    // The delivery held while paused is released; the first one keeps its place on its schedule (a retry later).
    await eventually(async () => {
      const found = await s.deliveriesOf(heldEvent, sub.id);
      return found[0]?.status === 'succeeded' ? true : undefined;
    });
    assert.equal((await s.deliveriesOf(firstEvent, sub.id))[0]?.status, 'pending');
    // Probes left no delivery and no event behind.
    const deliveries = (await s.alice.client.listDeliveriesPage({ subscriptionId: sub.id, limit: 250 })).deliveries;
    assert.deepEqual(deliveries.map((d) => d.eventType).sort(), ['customer.rejected', 'customer.rejected']);
    const tests = await s.alice.client.listEventsPage({ eventType: 'webhook.test', limit: 250 });
    assert.equal(tests.events.length, 0, 'no probe in the event listing');
    if (process.env.HERALD_RECORD_HISTORIES)
      await writeHistory('probe-failing-then-resumed', await handle.fetchHistory());
  });

  it('ends without resuming when the subscription is resumed by hand, and gives up after its life cap', async () => {
    s.answers.set('/by-hand', 410);
    const sub = await s.subscribe('/by-hand', ['customer.rejected']);
    await s.publish('customer.rejected');
    await eventually(async () =>
      (await s.alice.client.getSubscription(sub.id)).status === 'paused' ? true : undefined,
    );
    const handle = s.app.temporal.client.workflow.getHandle(probeWorkflowId(sub.id));
    await s.alice.client.resumeSubscription(sub.id);
    assert.deepEqual(await handle.result(), { outcome: 'ended' });

    // Paused by Herald again, its endpoint still 410: a probe with one probe left ends expired, still paused.
    await s.publish('customer.rejected');
    await eventually(async () =>
      (await s.alice.client.getSubscription(sub.id)).status === 'paused' ? true : undefined,
    );
    await eventually(async () => ((await handle.describe()).status.name === 'RUNNING' ? true : undefined));
    await handle.terminate('replaced by a short-lived probe');
    const short = await s.app.temporal.client.workflow.start(probeWorkflow, {
      taskQueue: s.workerConfig.TEMPORAL_TASK_QUEUE,
      workflowId: probeWorkflowId(sub.id),
      args: [{ subscriptionId: sub.id, intervalSeconds: 1, probesLeft: 1 }],
    });
    assert.deepEqual(await short.result(), { outcome: 'expired' });
    assert.equal((await s.alice.client.getSubscription(sub.id)).status, 'paused');
  });
});
