// Isolation with the default configuration (issue 42): an integrator's endpoint that answers, but only after 6 s,
// beside another integrator's endpoint on the same origin. The slow integrator holds at most its share of the
// worker's attempt slots (src/net/attempt-gate.ts); its further deliveries wait without a request, visibly, and go
// when a slot of its share comes free. Nothing is recorded that was not sent: every slow delivery succeeds with
// exactly one request, the one Herald lists. The other integrator's delivery to the same origin goes at once.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { eventually } from '../helpers/deliveries.js';
import { startDeliveryStack, type DeliveryStack } from '../helpers/delivery-stack.js';
import { registerIntegrator, type TestIntegrator } from '../helpers/integrators.js';

const SLOW_MS = 6_000;
const BACKLOG = 10;
/** Four slots, half of them per integrator: the slow integrator holds two at most. */
const SHARE = 2;
const EVENT_ID = 'x-service-webhook-event-id';

describe('a slow endpoint beside another integrator on the same origin', () => {
  let stack: DeliveryStack;
  let bob: TestIntegrator;
  before(async () => {
    stack = await startDeliveryStack({
      env: { HERALD_WORKER_MAX_ACTIVITIES: '4', HERALD_WORKER_INTEGRATOR_SHARE: '50' },
    });
    bob = await registerIntegrator(stack.app, stack.baseUrl, 'bob');
  });
  after(async () => {
    stack.delays.clear();
    await stack.stop();
  });

  it('holds its share of the slots only; the rest wait unsent, then each goes once and succeeds', async () => {
    const slow = await stack.subscribe('/a-slow', ['customer.created']);
    const url = `https://hooks.example.com:${stack.receiver.port}/b-prompt`;
    await bob.client.createSubscription({ url, eventTypes: ['customer.updated'] });
    stack.delays.set('/a-slow', SLOW_MS);
    const slowEvents: string[] = [];
    for (let i = 0; i < BACKLOG; i++) slowEvents.push(await stack.publish('customer.created'));
    await eventually(() => (stack.requestsTo('/a-slow').length >= SHARE ? true : undefined), 15_000, 'two slow');

    // Alice's further deliveries wait, and say why.
    const waiting = await eventually(
      async () => {
        const page = await stack.alice.client.listDeliveriesPage({ subscriptionId: slow.id });
        const busy = page.deliveries.filter((d) => d.waitReason === 'integrator_busy');
        return busy.length > 0 ? busy : undefined;
      },
      10_000,
      'a delivery waiting for its integrator share',
    );
    assert.ok(waiting.every((d) => d.status === 'pending' && d.attemptCount === 0 && d.nextAttemptAt !== null));

    // Bob's delivery to the same origin goes at once: no slot of Alice's share is his, no breaker of hers holds him.
    const publishedAt = Date.now();
    await stack.publish('customer.updated', bob.integratorId);
    await eventually(() => (stack.requestsTo('/b-prompt').length === 1 ? true : undefined), 5_000, "bob's delivery");
    const waitedMs = (stack.requestsTo('/b-prompt')[0]?.receivedAt ?? Infinity) - publishedAt;
    assert.ok(waitedMs < 2_000, `bob's delivery arrived ${waitedMs} ms after its event`);

    // Every slow delivery succeeds; never more than the share in flight; one request each, listed as its attempt.
    await eventually(
      () => (stack.requestsTo('/a-slow').length >= BACKLOG ? true : undefined),
      (BACKLOG / SHARE + 2) * SLOW_MS + 10_000,
      'every slow delivery sent',
    );
    const arrivals = stack.requestsTo('/a-slow').map((r) => r.receivedAt);
    const inFlight = Math.max(...arrivals.map((t) => arrivals.filter((u) => u <= t && u > t - SLOW_MS).length));
    assert.ok(inFlight <= SHARE, `${inFlight} slow requests in flight at once`);
    for (const eventId of slowEvents) {
      const requests = stack.requestsTo('/a-slow').filter((r) => r.headers[EVENT_ID] === eventId);
      const [delivery] = await eventually(async () => {
        const found = await stack.deliveriesOf(eventId, slow.id);
        return found[0]?.status === 'succeeded' ? found : undefined;
      }, 15_000);
      const attempts = (await stack.alice.client.listAttemptsPage(delivery!.id)).attempts;
      assert.equal(requests.length, 1, `${eventId}: ${requests.length} requests`);
      assert.equal(attempts.length, requests.length, `${eventId}: attempts listed = requests seen`);
      assert.deepEqual([delivery!.attemptCount, delivery!.waitReason], [1, null]);
      assert.equal(attempts[0]?.outcome, 'succeeded');
    }
  });
});
