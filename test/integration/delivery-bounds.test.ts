// A delivery's record cannot outgrow its database (issue 32, item 5): 1,000 manual retries against a receiver that
// answers a 4 KB body and a 16 KB Location leave a small delivery document and a complete, paged history; and a
// record the database refuses stops the POSTs after a few repeats instead of repeating them with every activity retry.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { FastifyInstance } from 'fastify';
import { BSON } from 'mongodb';
import { createAttemptDelivery, type AttemptDeps } from '../../activities/attempt-delivery.js';
import { createSigningKeyCache } from '../../activities/signing-keys.js';
import { createSubscriptionCache } from '../../activities/subscription-cache.js';
import { REPEAT_POSTS_MAX } from '../../src/domain/attempt-bounds.js';
import { createWebhookHttpClient } from '../../src/net/http-client.js';
import { callbackUrlPolicyFromConfig } from '../../src/net/policy-from-config.js';
import type { Store } from '../../src/store/index.js';
import type { AttemptInput } from '../../workflows/types.js';
import { buildTestApp, closeTestApp } from '../helpers/app.js';
import { lifecycleEvent, seedSubscription } from '../helpers/deliveries.js';
import { listen, registerIntegrator, type TestIntegrator } from '../helpers/integrators.js';
import { startHttpsReceiver, type HttpsReceiver } from '../helpers/receiver.js';

const RETRIES = 1_000;

describe(
  'bounds of a delivery record (real MongoDB-wire server, HTTPS receiver on loopback)',
  { timeout: 120_000 },
  () => {
    let app: FastifyInstance;
    let receiver: HttpsReceiver;
    let alice: TestIntegrator;
    let store: Store;
    let baseUrl: string;
    let http: ReturnType<typeof createWebhookHttpClient>;

    before(async () => {
      receiver = await startHttpsReceiver();
      const env = { HERALD_DNS_STATIC: 'hooks.example.com=127.0.0.1', HERALD_ALLOW_CIDRS: '127.0.0.1/32' };
      const built = await buildTestApp(env);
      app = built.app;
      store = app.store;
      http = createWebhookHttpClient({ policy: callbackUrlPolicyFromConfig(built.config), userAgent: 'Herald-test' });
      baseUrl = await listen(app);
      alice = await registerIntegrator(app, baseUrl, 'alice');
    });
    after(async () => {
      await http.close();
      await receiver.close();
      await closeTestApp(app);
    });

    /** A stored event and the delivery of it to a new subscription of Alice's at `path`. */
    async function newDelivery(path: string) {
      const url = `https://hooks.example.com:${receiver.port}${path}`;
      const { subscription } = await seedSubscription(store, app.vault, { integratorId: alice.integratorId, url });
      const event = lifecycleEvent(alice.integratorId);
      await store.events.insertOnce(event);
      const { integratorId, eventType } = event;
      return await store.deliveries.createOnce({
        integratorId,
        subscriptionId: subscription._id,
        eventId: event._id,
        eventType,
      });
    }

    /** The attempt activity as the worker builds it, called directly: `activityAttempt` is Temporal's retry count. */
    const attemptActivity = (deps: Partial<AttemptDeps> = {}) =>
      createAttemptDelivery({
        store,
        keys: createSigningKeyCache(app.vault),
        subscriptions: createSubscriptionCache(store),
        http,
        activityAttempt: () => 1,
        ...deps,
      }).attemptDelivery;

    const manual = (deliveryId: string, attemptNumber: number): AttemptInput => ({
      deliveryId,
      attemptNumber,
      actor: 'manual',
      followSchedule: false,
    });

    it(`${RETRIES} manual retries, 4 KB bodies, 16 KB Locations: a document under 64 KB, every attempt listed`, async () => {
      const path = '/big-answers';
      receiver.respond((r) =>
        r.url === path
          ? { status: 500, headers: { location: `https://x.example/${'l'.repeat(16_000)}` }, body: 'b'.repeat(4096) }
          : { status: 204 },
      );
      const delivery = await newDelivery(path);
      const attemptDelivery = attemptActivity();
      let largest = 0;
      for (let n = 1; n <= RETRIES; n += 1) {
        const result = await attemptDelivery(manual(delivery._id, n));
        assert.equal(result.statusCode, 500, `attempt ${n}`);
        if (n % 50 === 0) {
          const stored = await store.deliveries.collection.findOne({ _id: delivery._id });
          largest = Math.max(largest, BSON.calculateObjectSize(stored ?? {}));
          assert.ok(largest < 64 * 1024, `after ${n} attempts the delivery's document is ${largest} bytes`);
        }
      }
      assert.equal(receiver.requests.filter((r) => r.url === path).length, RETRIES, 'one request per retry');

      const shown = await alice.client.getDelivery(delivery._id);
      assert.equal(shown.attemptCount, RETRIES);
      assert.equal(shown.attempts.length, 100);
      assert.equal(shown.attemptsNextAfter, 100);
      const numbers: number[] = [];
      for await (const attempt of alice.client.listAttempts(delivery._id, 250)) {
        numbers.push(attempt.attemptNumber);
        assert.equal(attempt.actor, 'manual');
        const summary = attempt.responseSummary;
        assert.ok(summary && Buffer.byteLength(summary.body) <= 1024 && summary.truncated, 'body ≤ 1 KB, truncated');
        assert.ok(Buffer.byteLength(summary.headers.location ?? '') <= 256, 'Location ≤ 256 bytes');
        assert.ok(summary.headers.location?.startsWith('https://x.example/lll'));
      }
      assert.deepEqual(
        numbers,
        Array.from({ length: RETRIES }, (_, i) => i + 1),
        'every attempt, once, in order',
      );
      const page = await alice.client.listAttemptsPage(delivery._id, { after: 990, limit: 250 });
      assert.deepEqual([page.attempts.length, page.attempts[0]?.attemptNumber, page.nextAfter], [10, 991, null]);
      // Another integrator reaches none of it.
      const bob = await registerIntegrator(app, baseUrl, 'bob');
      await assert.rejects(bob.client.listAttemptsPage(delivery._id), { status: 404 });
    });

    it('a record the database refuses: at most a few repeated POSTs, then the delivery fails recording_failed', async () => {
      const path = '/unrecordable';
      const delivery = await newDelivery(path);
      // A real refusal by the server: `attempts.<n>` cannot be set inside a field that is not a document.
      await store.deliveries.collection.updateOne({ _id: delivery._id }, { $set: { attempts: 0 as never } });
      const errors: string[] = [];
      let call = 0;
      const attemptDelivery = attemptActivity({
        activityAttempt: () => call,
        recordBudgetMs: 100,
        logError: (message) => errors.push(message),
      });
      let ended = null;
      // Temporal retries a failed attempt without limit: ten of its calls stand for "forever".
      for (call = 1; call <= 10 && !ended; call += 1) {
        ended = await attemptDelivery(manual(delivery._id, 1)).catch(() => null);
        const posts = receiver.requests.filter((r) => r.url === path).length;
        assert.ok(posts <= 1 + REPEAT_POSTS_MAX, `call ${call}: ${posts} POSTs of one attempt`);
      }

      assert.equal(receiver.requests.filter((r) => r.url === path).length, 1 + REPEAT_POSTS_MAX, 'POSTs bounded');
      assert.deepEqual(ended && [ended.outcome, ended.deliveryStatus, ended.attemptId], [
        'recording_failed',
        'failed',
        null,
      ]);
      const stored = await store.deliveries.findById(delivery._id);
      assert.deepEqual([stored?.status, stored?.terminalReason], ['failed', 'recording_failed']);
      assert.ok(errors.some((m) => m.startsWith('attempt not recorded')));
    });
  },
);
