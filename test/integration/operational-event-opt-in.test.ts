// Issue 33 item 6: Herald's operational event webhook.subscription_paused is Herald's extension beside the spec's
// enums (§6.1), never inside them: delivered only to a subscription that names it (not to one subscribed to "all
// subscribable types", §6.2), stored but never listed by GET /v1/query/events, and documented as an enum of its own.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { deliveryIdOf } from '../../src/store/derived-ids.js';
import { deliveryWorkflowId } from '../../workflows/messages.js';
import { eventually } from '../helpers/deliveries.js';
import type { Subscription } from '../../src/client/herald-client.js';
import { startDeliveryStack, type DeliveryStack } from '../helpers/delivery-stack.js';
import { signedHeaders } from '../helpers/signed.js';

// Copied from the interface (§6.1), not from the code under test.
const SPEC_HISTORY = [
  'webhook.test',
  ...['created', 'updated', 'under_review', 'awaiting_associated_person_information', 'resubmission_requested']
    .concat(['active', 'rejected', 'deleted'])
    .map((s) => `customer.${s}`),
  ...['created', 'withdrawal_initiated', 'waiting_for_funds', 'payment_in_review', 'funds_in_transfer']
    .concat(['funds_received', 'processing', 'completed', 'simulation_failed', 'reverted'])
    .map((s) => `transaction.${s}`),
];
const SPEC_SUBSCRIBABLE = [
  ...['created', 'updated', 'under_review', 'awaiting_information', 'awaiting_associated_person_information']
    .concat(['resubmission_requested', 'active', 'rejected'])
    .map((s) => `customer.${s}`),
  ...['created', 'waiting_for_funds', 'payment_in_review', 'funds_in_transfer', 'funds_received', 'processing']
    .concat(['completed', 'simulation_failed', 'reverted'])
    .map((s) => `transaction.${s}`),
];
const PAUSED = 'webhook.subscription_paused';

/** Every `enum` in the document that holds an event type, with where it is. */
function eventTypeEnums(node: unknown, at = '', out: Array<{ at: string; values: string[] }> = []) {
  if (Array.isArray(node)) node.forEach((v, i) => eventTypeEnums(v, `${at}/${i}`, out));
  else if (node && typeof node === 'object') {
    for (const [k, v] of Object.entries(node)) {
      if (k === 'enum' && Array.isArray(v) && v.some((x) => /^(customer|transaction|webhook)\./.test(String(x))))
        out.push({ at, values: v.map(String) });
      else eventTypeEnums(v, `${at}/${k}`, out);
    }
  }
  return out;
}

describe("webhook.subscription_paused: Herald's opt-in extension (dev server, worker, HTTPS receiver)", () => {
  let s: DeliveryStack;
  let everything: Subscription;
  /** The lifecycle event published, and the operational event its 410 caused. */
  let eventId: string;
  let notice: { id: string; eventType: string; data: { reason: string } };
  before(async () => {
    s = await startDeliveryStack();
    await s.subscribe('/names-it', [PAUSED, 'customer.created']);
    everything = await s.subscribe('/all-types');
    s.answers.set('/gone', 410);
    await s.subscribe('/gone', ['transaction.completed']);
    eventId = await s.publish('transaction.completed');
    const request = await eventually(() => s.requestsTo('/names-it')[0]);
    notice = JSON.parse(request.body.toString('utf8')) as typeof notice;
  });
  after(async () => s.stop());

  it('documents the spec enums exactly as given and the operational event in an enum of its own', async () => {
    const doc = (await s.app.inject({ method: 'GET', url: '/openapi.json' })).json<{
      components: { schemas: Record<string, { enum?: string[]; description?: string }> };
    }>();
    const enums = eventTypeEnums(doc);
    const same = (a: string[], b: string[]) => JSON.stringify([...a].sort()) === JSON.stringify([...b].sort());
    assert.ok(
      enums.some((e) => same(e.values, SPEC_HISTORY)),
      'the history enum',
    );
    assert.ok(
      enums.some((e) => same(e.values, SPEC_SUBSCRIBABLE)),
      'the subscribable enum',
    );
    for (const e of enums)
      assert.ok(
        [SPEC_HISTORY, SPEC_SUBSCRIBABLE, ['webhook.test'], [PAUSED]].some((allowed) => same(e.values, allowed)),
        `${e.at}: ${e.values.join(', ')} is neither a spec enum nor Herald's own`,
      );
    const own = doc.components.schemas.HeraldEventType;
    assert.deepEqual(own?.enum, [PAUSED]);
    assert.match(own?.description ?? '', /Herald's extension, not in the interface/);
  });

  it('is delivered to a subscription naming it, never to one subscribed to all types', async () => {
    assert.deepEqual([notice.eventType, notice.data.reason], [PAUSED, 'endpoint_gone']);
    // The fan-out started every delivery of the event before storing it, and the watcher has its delivery: a
    // subscription to all types has none (no workflow), and received the lifecycle event only.
    const handle = s.app.temporal.client.workflow.getHandle(deliveryWorkflowId(deliveryIdOf(notice.id, everything.id)));
    await assert.rejects(handle.describe(), /not found/i);
    await eventually(() => s.requestsTo('/all-types')[0]);
    const ids = s.requestsTo('/all-types').map((r) => (JSON.parse(r.body.toString('utf8')) as { id: string }).id);
    assert.deepEqual(ids, [eventId]);
  });

  it('is stored but never listed by GET /v1/query/events, whose filter does not accept its type', async () => {
    const stored = await s.app.store.events.findForIntegrator(s.alice.integratorId, notice.id);
    assert.equal(stored?.eventType, PAUSED, 'stored: its deliveries are made from it');
    const listed = await s.alice.client.listEventsPage({ limit: 250 });
    assert.ok(listed.events.some((e) => e.id === eventId));
    assert.ok(!listed.events.some((e) => e.id === notice.id || (e.eventType as string) === PAUSED));
    const target = `/v1/query/events?eventType=${PAUSED}`;
    const refused = await s.app.inject({ method: 'GET', url: target, headers: signedHeaders(s.alice, 'GET', target) });
    assert.equal(refused.statusCode, 400);
  });
});
