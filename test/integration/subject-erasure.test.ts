// Issue 44 item 3, second half: the erasure of one subject's events, end to end on both listing layouts. DELETE
// /internal/v1/integrators/{id}/subjects/{subjectId} answers a job; it cancels the pending deliveries of every event of
// the integrator whose body names the id (a routing field, or anywhere in `data`, in any letter case), then erases
// those events with their deliveries, attempts and listing rows. Afterwards no API answer and no stored document of
// the integrator holds the id; its other events, and another integrator's event naming the same id, stay.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { Db } from 'mongodb';
import type { PublishEventInput } from '../../src/client/events.js';
import { HeraldApiError } from '../../src/client/http.js';
import { deliveryWorkflowId } from '../../workflows/messages.js';
import { cli } from '../helpers/cli.js';
import { eventually } from '../helpers/deliveries.js';
import { startDeliveryStack, type DeliveryStack } from '../helpers/delivery-stack.js';
import { ADMIN_TOKEN, adminHeaders, registerIntegrator, type TestIntegrator } from '../helpers/integrators.js';

/** Every stored document, in every collection, whose text holds `needle` (any letter case). */
async function documentsNaming(db: Db, needle: string): Promise<string[]> {
  const found: string[] = [];
  for (const { name } of await db.listCollections().toArray()) {
    for (const doc of await db.collection(name).find({}).toArray()) {
      const text = JSON.stringify(doc).toLowerCase();
      if (text.includes(needle.toLowerCase())) found.push(`${name}: ${text.slice(0, 200)}`);
    }
  }
  return found;
}

for (const layout of ['pages', 'indexes'] as const) {
  describe(`a subject's erasure (${layout})`, { timeout: 120_000 }, () => {
    let s: DeliveryStack;
    let bob: TestIntegrator;
    before(async () => {
      s = await startDeliveryStack({ env: { HERALD_LISTING_LAYOUT: layout, HERALD_ERASURE_GRACE_SECONDS: '1' } });
      bob = await registerIntegrator(s.app, s.baseUrl, 'bob');
    });
    after(async () => s?.stop());

    const path = (integratorId: string, subjectId: string) =>
      `/internal/v1/integrators/${integratorId}/subjects/${subjectId}`;
    const erase = (integratorId: string, subjectId: string) =>
      s.app.inject({ method: 'DELETE', url: path(integratorId, subjectId), headers: adminHeaders });
    const job = async (integratorId: string, subjectId: string) =>
      (
        await s.app.inject({ method: 'GET', url: `${path(integratorId, subjectId)}/erasure`, headers: adminHeaders })
      ).json<{ state: string; step: string; counts: Record<string, number> }>();
    const publish = async (fields: Partial<PublishEventInput>, integratorId = s.alice.integratorId) =>
      (
        await s.admin.publishEvent({
          id: randomUUID(),
          eventType: 'customer.updated',
          occurredAt: new Date().toISOString(),
          livemode: true,
          payloadVersion: 1,
          integratorId,
          provider: 'kyc_provider',
          ...fields,
        })
      ).event.id;

    it('cancels and erases every event naming the id, with its deliveries, and nothing else', async () => {
      const subject = randomUUID();
      const okSub = await s.subscribe(`/subject-ok-${layout}`);
      s.answers.set(`/subject-fail-${layout}`, 500);
      const failSub = await s.subscribe(`/subject-fail-${layout}`);
      const named = [
        await publish({ entityId: subject }),
        await publish({ accountId: randomUUID(), data: { customer: { id: subject.toUpperCase() }, note: 'x' } }),
      ];
      const kept = await publish({ accountId: randomUUID(), data: { customer: { id: randomUUID() } } });
      const bobsEvent = await publish({ entityId: subject }, bob.integratorId);
      // Each event: succeeded to one endpoint, pending (retrying) to the other.
      const deliveries = await eventually(async () => {
        const all = await Promise.all([...named, kept].map((e) => s.deliveriesOf(e)));
        const settled = all.every(
          (ds) =>
            ds.length === 2 &&
            ds.some((d) => d.subscriptionId === okSub.id && d.status === 'succeeded') &&
            ds.some((d) => d.subscriptionId === failSub.id && d.status === 'pending' && d.attemptCount >= 1),
        );
        return settled ? all : undefined;
      }, 30_000);
      const erasedDeliveries = deliveries.slice(0, 2).flat();
      assert.equal(erasedDeliveries.length, 4);
      assert.ok((await documentsNaming(s.app.store.db, subject)).length > 0, 'the subject is stored before');

      const started = await erase(s.alice.integratorId, subject);
      assert.equal(started.statusCode, 202, started.body);
      assert.equal(started.headers.location, `${path(s.alice.integratorId, subject)}/erasure`);
      const done = await eventually(async () => {
        const j = await job(s.alice.integratorId, subject);
        return j.state === 'completed' ? j : undefined;
      }, 60_000);
      assert.equal(done.step, 'done');
      assert.equal(done.counts.events, 2);
      assert.equal(done.counts.deliveries, 4);
      assert.equal(done.counts.cancelledDeliveries, 2);
      // Attempts live in their delivery (the latest few) and apart from it (older ones): none of either is left.
      const attemptsLeft = await s.app.store.db
        .collection<{ _id: string }>('attempts')
        .countDocuments({ _id: { $regex: `^(${erasedDeliveries.map((d) => d.id).join('|')})` } });
      assert.equal(attemptsLeft, 0);

      // No API answer holds them: the history, the deliveries listing, a delivery by id.
      const history = (await s.alice.client.listEventsPage({ limit: 250 })).events.map((e) => e.id);
      for (const id of named) assert.ok(!history.includes(id), id);
      assert.ok(history.includes(kept));
      for (const id of named) assert.deepEqual(await s.deliveriesOf(id), []);
      for (const d of erasedDeliveries) {
        await assert.rejects(
          s.alice.client.getDelivery(d.id),
          (err: unknown) => err instanceof HeraldApiError && err.status === 404,
        );
      }
      // No stored document of Alice's names the subject (events, deliveries, attempts, listing pages, journals);
      // Bob's event naming it is his own and stays.
      const left = await documentsNaming(s.app.store.db, subject);
      assert.ok(left.length > 0, "Bob's event stays");
      for (const doc of left) {
        const bobs = doc.includes(bob.integratorId.toLowerCase()) || doc.includes(bobsEvent.toLowerCase());
        assert.ok(bobs, doc);
      }
      assert.equal(await s.app.store.db.collection<{ _id: string }>('events').countDocuments({ _id: kept }), 1);
      // The pending deliveries' runs ended; the kept event's deliveries are as they were.
      for (const d of erasedDeliveries.filter((x) => x.status === 'pending')) {
        const run = await s.app.temporal.client.workflow.getHandle(deliveryWorkflowId(d.id)).describe();
        assert.notEqual(run.status.name, 'RUNNING', d.id);
      }
      assert.equal((await s.deliveriesOf(kept)).length, 2);

      // Once it completed, a repeat is a new job over what is stored then: nothing names the subject any more.
      const again = await erase(s.alice.integratorId, subject);
      assert.equal(again.statusCode, 202, again.body);
      const viaCli = await cli({ HERALD_URL: s.baseUrl, HERALD_ADMIN_TOKEN: ADMIN_TOKEN }, [
        'integrators',
        'erase-subject',
        s.alice.integratorId,
        subject,
        '--wait',
      ]);
      assert.equal(viaCli.code, 0, viaCli.stderr);
      const repeated = JSON.parse(viaCli.stdout) as { state: string; counts: Record<string, number> };
      assert.equal(repeated.state, 'completed');
      assert.deepEqual(repeated.counts, { events: 0, deliveries: 0, attempts: 0, cancelledDeliveries: 0 });
    });

    it('answers 404 for an integrator that never was, 400 for a subject that is not a uuid', async () => {
      const none = await erase(randomUUID(), randomUUID());
      assert.equal(none.statusCode, 404);
      assert.equal(none.json<{ status: number }>().status, 404);
      const bad = await erase(s.alice.integratorId, 'cus_123');
      assert.equal(bad.statusCode, 400);
      assert.equal(bad.json<{ status: number }>().status, 400);
    });
  });
}
