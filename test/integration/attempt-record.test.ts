// An attempt the receiver answered is recorded even when the database connection breaks right after the POST: the
// record is retried in place, so the activity neither fails nor (on its retry) POSTs the delivery again.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { createActivities } from '../../activities/index.js';
import { createKeyVault } from '../../src/crypto/key-encryption.js';
import { loadMasterKey } from '../../src/crypto/master-key.js';
import { createWebhookHttpClient } from '../../src/net/http-client.js';
import { callbackUrlPolicyFromConfig } from '../../src/net/policy-from-config.js';
import { createStore } from '../../src/store/index.js';
import { createMongo } from '../../src/store/mongo.js';
import { lifecycleEvent, seedSubscription } from '../helpers/deliveries.js';
import { requireEnv, testConfig } from '../helpers/env.js';
import { startHttpsReceiver, type HttpsReceiver } from '../helpers/receiver.js';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.js';

describe(
  'recording an answered attempt (real MongoDB-wire server behind a proxy the test cuts)',
  { timeout: 60_000 },
  () => {
    const target = new URL(requireEnv('MONGODB_URL'));
    let proxy: TcpProxy;
    let receiver: HttpsReceiver;
    let close: () => Promise<void> = async () => {};

    before(async () => {
      proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port) });
      receiver = await startHttpsReceiver();
    });
    after(async () => {
      await close();
      await receiver.close();
      await proxy.close();
    });

    it('records the attempt once the database is back, after one POST', async () => {
      const config = testConfig({
        MONGODB_URL: `mongodb://127.0.0.1:${proxy.port}/?maxPoolSize=2&directConnection=true`,
        HERALD_DNS_STATIC: 'hooks.example.com=127.0.0.1',
        HERALD_ALLOW_CIDRS: '127.0.0.1/32',
      });
      const mongo = createMongo(config);
      const store = createStore(mongo.db);
      const vault = createKeyVault(loadMasterKey(config).key);
      const http = createWebhookHttpClient({ policy: callbackUrlPolicyFromConfig(config), userAgent: 'Herald-test' });
      close = async () => {
        await http.close();
        await mongo.db.dropDatabase();
        await mongo.client.close();
      };
      const { attemptDelivery } = createActivities({ store, vault, http, activityAttempt: () => 1 });
      const integratorId = randomUUID();
      const url = `https://hooks.example.com:${receiver.port}/cut`;
      const { subscription } = await seedSubscription(store, vault, { integratorId, url });
      const event = lifecycleEvent(integratorId);
      await store.events.insertOnce(event);
      const delivery = await store.deliveries.createOnce({
        integratorId,
        subscriptionId: subscription._id,
        eventId: event._id,
        eventType: event.eventType,
      });
      // The reads are done when the POST arrives: the database goes away for 1.5 s before the answer.
      receiver.respond(() => {
        proxy.cut(1_500);
        return { status: 200 };
      });

      const result = await attemptDelivery({
        deliveryId: delivery._id,
        attemptNumber: 1,
        actor: 'system',
        followSchedule: true,
      });
      assert.equal(result.outcome, 'succeeded');
      assert.equal(result.deliveryStatus, 'succeeded');
      assert.equal(receiver.requests.length, 1);
      const stored = await store.deliveries.findById(delivery._id);
      assert.equal(stored?.status, 'succeeded');
      assert.equal(stored.attempts?.['1']?.statusCode, 200);
    });
  },
);
