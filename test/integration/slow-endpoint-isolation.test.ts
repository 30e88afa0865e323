// Isolation between endpoints with the default configuration (issue 32: task-queue fairness off, one FIFO queue): an
// endpoint that answers, but only after half the response timeout or more, holds an attempt slot nearly as long as
// a hung one. The worker's breaker per origin counts those answers as timeouts (src/net/endpoint-breaker.ts): after
// five in a row its attempts fail at once without a request, the slots come free, and another endpoint's delivery
// goes instead of queueing behind the whole backlog. Two attempt slots; without the rule the healthy delivery waits
// for all BACKLOG slow ones (BACKLOG / 2 × SLOW_MS ≈ 55 s).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { HTTP_RESPONSE_TIMEOUT_MS } from '../../src/domain/attempt-bounds.js';
import { publishBehindBacklog } from '../helpers/behind-backlog.js';
import { startDeliveryStack, type DeliveryStack } from '../helpers/delivery-stack.js';

const SLOW_MS = HTTP_RESPONSE_TIMEOUT_MS / 2 + 500;
const BACKLOG = 20;

describe('an endpoint that answers slowly, with fairness off', () => {
  let stack: DeliveryStack;
  before(async () => {
    // The prompt endpoint is another origin (the breaker is per origin): another name for the same receiver.
    const names = 'hooks.example.com=127.0.0.1,rebind.example.com=127.0.0.1,prompt.example.com=127.0.0.1';
    stack = await startDeliveryStack({ env: { HERALD_WORKER_MAX_ACTIVITIES: '2', HERALD_DNS_STATIC: names } });
  });
  after(async () => {
    stack.delays.clear();
    await stack.stop();
  });

  it("stops holding the slots after five slow answers: another origin's delivery goes", async () => {
    const slow = await stack.subscribe('/slow-answers', ['customer.created']);
    await stack.subscribe('/prompt', ['customer.updated'], 'prompt.example.com');
    const { slowEvents, slowBefore, waitedMs } = await publishBehindBacklog(stack, {
      slow: { path: '/slow-answers', eventType: 'customer.created', delayMs: SLOW_MS },
      backlog: BACKLOG,
      other: { path: '/prompt', eventType: 'customer.updated', withinMs: 6 * SLOW_MS },
    });
    // Five slow answers open the breaker (a sixth may be in flight in the other slot); FIFO would send all of them.
    assert.ok(slowBefore <= 6, `${slowBefore} of ${BACKLOG} slow requests went before the prompt one`);
    assert.ok(waitedMs < 4 * SLOW_MS, `prompt delivery after ${waitedMs} ms`);

    // The rest of the backlog failed its first attempt at once, without a request, and waits for its schedule.
    const unsent: string[] = [];
    for (const eventId of slowEvents) {
      const [delivery] = await stack.deliveriesOf(eventId, slow.id);
      if (!delivery || delivery.attemptCount === 0) continue;
      const page = await stack.alice.client.listAttemptsPage(delivery.id);
      const first = page.attempts[0];
      if (first?.outcome === 'endpoint_unresponsive') {
        assert.equal(delivery.status, 'pending');
        assert.match(first.error ?? '', /timed out or took 5 s or more/);
        unsent.push(eventId);
      }
    }
    assert.ok(unsent.length >= BACKLOG - 8, `${unsent.length} of ${BACKLOG} first attempts held back`);
    assert.ok(stack.requestsTo('/slow-answers').length <= BACKLOG - unsent.length + 1);
  });
});
