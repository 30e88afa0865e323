// Issue 32 item 6: an event id of integrator A sent again for integrator B reaches nothing of B's, on the real stack
// (dev server, worker, HTTPS receiver). The ingest refuses it before its hand-off; the attempt refuses what gets past
// that check (a concurrent insert, a delivery already stored, a manual retry of one).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { WorkflowNotFoundError } from '@temporalio/client';
import type { PublishEventInput } from '../../src/client/events.js';
import { HeraldApiError } from '../../src/client/http.js';
import type { Subscription } from '../../src/client/herald-client.js';
import { WEBHOOK_HEADERS } from '../../src/receiver/webhook-verifier.js';
import { deliveryIdOf } from '../../src/store/derived-ids.js';
import { deliveryWorkflowId } from '../../workflows/messages.js';
import { eventually } from '../helpers/deliveries.js';
import { startDeliveryStack, type DeliveryStack } from '../helpers/delivery-stack.js';
import { registerIntegrator, type TestIntegrator } from '../helpers/integrators.js';

describe("an event id of another integrator's event", () => {
  let s: DeliveryStack;
  let bob: TestIntegrator;
  let bobs: Subscription;
  before(async () => {
    s = await startDeliveryStack();
    bob = await registerIntegrator(s.app, s.baseUrl, 'bob');
    // Older than Alice's events: a subscription newer than its event gets no delivery anyway.
    bobs = await bob.client.createSubscription({ url: `https://hooks.example.com:${s.receiver.port}/bob` });
  });
  after(async () => s.stop());

  const eventOf = (integratorId: string, id = randomUUID(), secret = randomUUID()): PublishEventInput => ({
    id,
    eventType: 'customer.created',
    occurredAt: new Date().toISOString(),
    livemode: true,
    payloadVersion: 1,
    integratorId,
    provider: 'kyc_provider',
    data: { secret },
  });
  /** Alice's event, stored; its `data` holds a string that must never reach Bob. */
  async function alicesEvent(): Promise<{ input: PublishEventInput; secret: string }> {
    const secret = randomUUID();
    const input = eventOf(s.alice.integratorId, randomUUID(), secret);
    assert.equal((await s.admin.publishEvent(input)).created, true);
    return { input, secret };
  }
  const bobReceived = () => s.requestsTo('/bob');
  const leaked = (secret: string, eventId: string) =>
    bobReceived().filter(
      (r) => r.body.includes(secret) || r.headers[WEBHOOK_HEADERS.eventId.toLowerCase()] === eventId,
    );
  const workflowOf = (eventId: string) =>
    s.app.temporal.client.workflow.getHandle(deliveryWorkflowId(deliveryIdOf(eventId, bobs.id)));
  const bobsDeliveries = async () => (await bob.client.listDeliveriesPage({ limit: 250 })).deliveries;

  it("answers 409; Bob's endpoint, his listing and his retries get nothing of Alice's", async () => {
    const own = (await s.admin.publishEvent(eventOf(bob.integratorId))).event.id; // Bob's own delivery, to retry
    const { input, secret } = await alicesEvent();
    const refused = await s.admin.publishEvent({ ...input, integratorId: bob.integratorId }).catch((e: unknown) => e);
    assert.ok(refused instanceof HeraldApiError && refused.status === 409, `409, got ${String(refused)}`);
    // Whatever started for Bob's subscription has ended (the attempt refused the event).
    await workflowOf(input.id)
      .result()
      .catch((e: unknown) => assert.ok(e instanceof WorkflowNotFoundError, String(e)));

    const listed = await eventually(async () => {
      const rows = await bobsDeliveries();
      return rows.some((d) => d.eventId === own && d.status === 'succeeded') ? rows : undefined;
    });
    assert.deepEqual(
      listed.map((d) => d.eventId),
      [own],
      "Bob's listing: his own delivery only",
    );
    for (const d of listed) await bob.client.retryDelivery(d.id);
    await eventually(() => (bobReceived().length >= 2 ? true : undefined));
    assert.deepEqual(leaked(secret, input.id), [], "nothing of Alice's event reached Bob's endpoint");
  });

  it('refuses at the attempt a hand-off that got past the check (a concurrent insert won): nothing sent or listed', async () => {
    const { input, secret } = await alicesEvent();
    // Bob's ingest as it runs when its check came before Alice's insert: the hand-off, then the insert's 409.
    const alices = await s.app.store.events.findById(input.id);
    assert.ok(alices);
    const bobsDoc = { ...alices, integratorId: bob.integratorId, createdAt: new Date() };
    assert.deepEqual(await s.app.deliveryService.fanOut.handOff(bobsDoc), [bobs.id]);
    assert.deepEqual(await workflowOf(input.id).result(), { status: 'failed', attempts: 0 });
    assert.deepEqual(leaked(secret, input.id), [], "nothing of Alice's event reached Bob's endpoint");
    assert.equal(await s.app.store.deliveries.findById(deliveryIdOf(input.id, bobs.id)), null, 'no delivery record');
    assert.deepEqual(
      (await bobsDeliveries()).filter((d) => d.eventId === input.id),
      [],
      "Bob's listing shows nothing",
    );
  });

  it("ends a stored delivery of Bob's naming Alice's event failed on his retry, without a request", async () => {
    const { input, secret } = await alicesEvent();
    // What an ingest before this check could leave: Bob's delivery of Alice's event, recorded.
    const id = deliveryIdOf(input.id, bobs.id);
    const at = new Date();
    await s.app.store.deliveries.collection.insertOne({
      ...{ _id: id, integratorId: bob.integratorId, subscriptionId: bobs.id, eventId: input.id },
      ...{ eventType: 'customer.created', status: 'succeeded', attemptCount: 1, createdAt: at, updatedAt: at },
      ...{ nextAttemptAt: null, terminalReason: null, lastResponseSummary: null },
    });
    await bob.client.retryDelivery(id);
    const ended = await eventually(async () => {
      const d = await bob.client.getDelivery(id);
      return d.status === 'failed' ? d : undefined;
    });
    assert.equal(ended.terminalReason, 'event_of_another_integrator');
    assert.equal(ended.attemptCount, 1, 'no attempt made');
    await workflowOf(input.id).result();
    assert.deepEqual(leaked(secret, input.id), [], "nothing of Alice's event reached Bob's endpoint");
  });
});
