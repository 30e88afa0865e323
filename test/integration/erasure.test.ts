// Issue 44 item 3: an integrator's erasure, end to end on both listing layouts. DELETE /internal/v1/integrators/{id}
// answers a job to poll; it cancels the integrator's pending deliveries (their runs end), erases its events,
// deliveries, attempts, subscriptions, signing keys, page documents, keys and itself, and leaves every other
// integrator's data as it was; a repeat answers the finished job; its keys no longer sign, its events are refused.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { HeraldApiError } from '../../src/client/http.js';
import { KNOWN_FOR_MS } from '../../src/store/integrators-repo.js';
import { erasureWorkflowId } from '../../workflows/erasure-messages.js';
import { deliveryWorkflowId } from '../../workflows/messages.js';
import { eventually } from '../helpers/deliveries.js';
import { startDeliveryStack, type DeliveryStack } from '../helpers/delivery-stack.js';
import { cli } from '../helpers/cli.js';
import { ADMIN_TOKEN, adminHeaders, registerIntegrator, type TestIntegrator } from '../helpers/integrators.js';

for (const layout of ['pages', 'indexes'] as const) {
  describe(`an integrator's erasure (${layout})`, { timeout: 120_000 }, () => {
    let s: DeliveryStack;
    let bob: TestIntegrator;
    before(async () => {
      s = await startDeliveryStack({
        env: { HERALD_LISTING_LAYOUT: layout, HERALD_ERASURE_GRACE_SECONDS: String(KNOWN_FOR_MS / 1000 + 1) },
      });
      bob = await registerIntegrator(s.app, s.baseUrl, 'bob');
    });
    after(async () => s?.stop());

    const erase = (id: string) =>
      s.app.inject({ method: 'DELETE', url: `/internal/v1/integrators/${id}`, headers: adminHeaders });
    const job = async (id: string) =>
      (
        await s.app.inject({ method: 'GET', url: `/internal/v1/integrators/${id}/erasure`, headers: adminHeaders })
      ).json<{
        state: string;
        step: string;
        counts: Record<string, number>;
      }>();
    const countOf = (collection: string, filter: object) =>
      s.app.store.db.collection(collection).countDocuments(filter);

    it('cancels its live work, erases everything of it and nothing of anyone else', async () => {
      const ok = await s.subscribe('/erase-alice');
      s.answers.set('/erase-bob-fail', 500);
      const host = `https://hooks.example.com:${s.receiver.port}`;
      const bobOk = await bob.client.createSubscription({ url: `${host}/erase-bob-ok` });
      const bobFail = await bob.client.createSubscription({ url: `${host}/erase-bob-fail` });
      const aliceEvent = await s.publish();
      const bobEvents = [await s.publish(undefined, bob.integratorId), await s.publish(undefined, bob.integratorId)];
      // Bob's deliveries: succeeded to one endpoint, pending (retrying) to the other.
      const pending = await eventually(async () => {
        const ds = (await bob.client.listDeliveriesPage({ subscriptionId: bobFail.id })).deliveries;
        return ds.length === 2 && ds.every((d) => d.status === 'pending' && d.attemptCount >= 1) ? ds : undefined;
      }, 30_000);
      await eventually(async () => {
        const ds = (await bob.client.listDeliveriesPage({ subscriptionId: bobOk.id })).deliveries;
        return ds.length === 2 && ds.every((d) => d.status === 'succeeded') ? true : undefined;
      }, 30_000);
      await eventually(
        async () => ((await s.deliveriesOf(aliceEvent, ok.id))[0]?.status === 'succeeded' ? true : undefined),
        30_000,
      );

      // Its attempts are counted in its subscriptions' hourly stats (written within a second).
      await eventually(async () =>
        (await countOf('attempt_stats', { integratorId: bob.integratorId })) > 0 ? 1 : undefined,
      );
      const started = await erase(bob.integratorId);
      assert.equal(started.statusCode, 202, started.body);
      assert.equal(started.headers.location, `/internal/v1/integrators/${bob.integratorId}/erasure`);
      const done = await eventually(async () => {
        const j = await job(bob.integratorId);
        return j.state === 'completed' ? j : undefined;
      }, 90_000);
      assert.equal(done.step, 'done');
      assert.equal(done.counts.cancelledDeliveries, 2);
      assert.equal(done.counts.deliveries, 4);
      assert.equal(done.counts.events, 2);
      assert.equal(done.counts.subscriptions, 2);

      // Nothing of Bob's is left, in any collection that names him or his subscriptions.
      const bobId = bob.integratorId;
      for (const c of ['events', 'deliveries', 'subscriptions', 'campaign_progress', 'attempt_stats'])
        assert.equal(await countOf(c, { integratorId: bobId }), 0, c);
      assert.equal(await countOf('integrators', { _id: bobId }), 0);
      assert.equal(await countOf('signing_keys', { subscriptionId: { $in: [bobOk.id, bobFail.id] } }), 0);
      assert.equal(await countOf('event_pages', { _id: { $regex: bobId } }), 0);
      assert.equal(await countOf('attempts', { _id: { $regex: `^(${pending.map((d) => d.id).join('|')})` } }), 0);
      for (const id of bobEvents) assert.equal(await countOf('events', { _id: id }), 0);
      // The pending deliveries' runs ended.
      for (const d of pending) {
        const run = await s.app.temporal.client.workflow.getHandle(deliveryWorkflowId(d.id)).describe();
        assert.notEqual(run.status.name, 'RUNNING', d.id);
      }
      // Alice's history is whole.
      assert.equal((await s.deliveriesOf(aliceEvent, ok.id))[0]?.status, 'succeeded');
      assert.ok((await s.alice.client.listEventsPage({})).events.some((e) => e.id === aliceEvent));

      // Bob's key no longer signs; his events are refused; a repeat answers the finished job.
      // (every API instance's key directory learns of the revocation within its refresh, 5 s)
      await eventually(
        async () =>
          await bob.client.listEventsPage({}).then(
            () => undefined,
            (err: unknown) => (err instanceof HeraldApiError && err.status === 401 ? true : undefined),
          ),
        15_000,
      );
      assert.equal(await countOf('integrator_keys', { integratorId: bobId, revokedAt: null }), 0);
      await assert.rejects(
        s.publish(undefined, bobId),
        (err: unknown) => err instanceof HeraldApiError && err.status === 400,
      );
      const again = await erase(bobId);
      assert.equal(again.statusCode, 200);
      assert.equal(again.json<{ state: string }>().state, 'completed');
      // The command line: the same job, finished.
      const viaCli = await cli({ HERALD_URL: s.baseUrl, HERALD_ADMIN_TOKEN: ADMIN_TOKEN }, [
        'integrators',
        'erase',
        bobId,
        '--wait',
      ]);
      assert.equal(viaCli.code, 0, viaCli.stderr);
      assert.deepEqual(JSON.parse(viaCli.stdout).counts, done.counts);
      const run = await s.app.temporal.client.workflow.getHandle(erasureWorkflowId(bobId)).describe();
      assert.equal(run.status.name, 'COMPLETED');
    });

    it('answers 404 for an integrator that never was', async () => {
      const none = await erase('8f14e45f-ceea-467f-a0e6-bb6d4d2b0e0a');
      assert.equal(none.statusCode, 404);
      assert.equal(
        (
          await s.app.inject({
            method: 'GET',
            url: '/internal/v1/integrators/8f14e45f-ceea-467f-a0e6-bb6d4d2b0e0a/erasure',
            headers: adminHeaders,
          })
        ).statusCode,
        404,
      );
    });
  });
}
