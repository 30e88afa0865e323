// Issue 11 item 3: the API does not start without a master key, and a signing key that cannot be opened ends the
// delivery as failed (signing_key_unavailable) after one activity call, logged at error level — on the real stack.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { buildApp } from '../../src/process/app.js';
import { HeraldApiError } from '../../src/client/http.js';
import { ConfigError } from '../../src/config.js';
import { createKeyVault, generateSigningKey } from '../../src/crypto/key-encryption.js';
import { deliveryWorkflowId } from '../../workflows/messages.js';
import { eventually } from '../helpers/deliveries.js';
import { startDeliveryStack, type DeliveryStack } from '../helpers/delivery-stack.js';
import { testConfig } from '../helpers/env.js';
import { eventsOfType } from '../helpers/temporal.js';

const root = fileURLToPath(new URL('../../', import.meta.url));

describe('the API without a master key', () => {
  const noKey = { HERALD_MASTER_KEY: '', HERALD_MASTER_KEY_FILE: '' };

  it('the server process exits non-zero naming HERALD_MASTER_KEY, before connecting anywhere', async () => {
    const env = { ...process.env, ...noKey, HERALD_PORT: '0', MONGODB_URL: 'mongodb://127.0.0.1:1/' };
    const run = promisify(execFile)(process.execPath, ['--import', 'tsx', 'src/process/server.ts'], {
      cwd: root,
      env,
      timeout: 30_000,
    });
    const failed = await run.then(
      () => assert.fail('the API started'),
      (err: { code?: number; stderr?: string }) => err,
    );
    assert.equal(failed.code, 1);
    assert.match(failed.stderr ?? '', /HERALD_MASTER_KEY: required/);
    assert.match(failed.stderr ?? '', /HERALD_INSECURE_EPHEMERAL_MASTER_KEY=1/);
  });

  it('buildApp refuses without one, and starts with the explicit throw-away opt-in', async () => {
    await assert.rejects(
      buildApp({ config: testConfig(noKey), logger: false }),
      (err: unknown) => err instanceof ConfigError && /HERALD_MASTER_KEY: required/.test(err.message),
    );
    const app = await buildApp({
      config: testConfig({ ...noKey, HERALD_INSECURE_EPHEMERAL_MASTER_KEY: '1' }),
      logger: false,
    });
    try {
      await app.ready();
      assert.equal(app.masterKey.length, 32);
    } finally {
      await app.mongo.db.dropDatabase().catch(() => undefined);
      await app.close();
    }
  });
});

describe('a signing key that cannot be opened (dev server, worker, HTTPS receiver)', () => {
  let s: DeliveryStack;
  const errors: { fields: Record<string, unknown>; message: string }[] = [];
  const workerLogger = {
    info: () => undefined,
    warn: () => undefined,
    error: (fields: unknown, message?: string) =>
      errors.push({ fields: fields as Record<string, unknown>, message: message ?? '' }),
  };
  before(async () => {
    s = await startDeliveryStack({ workerLogger });
  });
  after(async () => s.stop());

  const breakings = {
    'missing record': async (keyId: string) => {
      await s.app.store.subscriptions.keys.deleteOne({ _id: keyId });
    },
    'wrong master key': async (keyId: string, subscriptionId: string) => {
      const other = createKeyVault(randomBytes(32)).seal(generateSigningKey().privateKey, subscriptionId);
      await s.app.store.subscriptions.keys.updateOne({ _id: keyId }, { $set: { sealed: other } });
    },
    'corrupt seal': async (keyId: string) => {
      const doc = await s.app.store.subscriptions.findKey(keyId);
      const bytes = Buffer.from(doc!.sealed.ciphertext, 'base64');
      bytes[0]! ^= 0xff;
      await s.app.store.subscriptions.keys.updateOne(
        { _id: keyId },
        { $set: { 'sealed.ciphertext': bytes.toString('base64') } },
      );
    },
  } as const;

  for (const [name, breakKey] of Object.entries(breakings)) {
    it(`${name}: the delivery fails at once with signing_key_unavailable, nothing sent, one activity call`, async () => {
      const path = `/no-key-${name.replace(/ /g, '-')}`;
      const subscription = await s.subscribe(path);
      await breakKey(subscription.keyId, subscription.id);
      const eventId = await s.publish();

      const [delivery] = await eventually(async () => {
        const found = await s.deliveriesOf(eventId, subscription.id);
        return found[0]?.status === 'failed' ? found : undefined;
      });
      assert.equal(delivery?.terminalReason, 'signing_key_unavailable');
      assert.equal(delivery?.attemptCount, 0);
      assert.deepEqual((await s.alice.client.getDelivery(delivery.id)).attempts, [], 'no attempt recorded');
      assert.equal(s.requestsTo(path).length, 0, 'nothing sent');

      const handle = s.app.temporal.client.workflow.getHandle(deliveryWorkflowId(delivery.id));
      assert.deepEqual(await handle.result(), { status: 'failed', attempts: 0 });
      const events = (await handle.fetchHistory()).events;
      const started = eventsOfType(events, 'activityTaskStartedEventAttributes');
      assert.deepEqual(
        started.map((e) => e.activityTaskStartedEventAttributes?.attempt),
        [1],
        'never an activity retry',
      );

      const logged = errors.find((e) => e.fields.deliveryId === delivery.id);
      assert.ok(logged, 'logged at error level');
      assert.match(logged.message, /signing key unavailable/);
      assert.equal(logged.fields.keyId, subscription.keyId);
      assert.deepEqual(
        [logged.fields.eventId, logged.fields.subscriptionId, logged.fields.integratorId, logged.fields.attemptNumber],
        [eventId, subscription.id, s.alice.integratorId, 1],
        'the five ids of a delivery log line',
      );
      const doc = await s.app.store.subscriptions.findKey(subscription.keyId);
      if (doc) assert.ok(!JSON.stringify(logged).includes(doc.sealed.ciphertext), 'no key material in the log');
    });
  }

  it("a test send whose key cannot be opened answers 500 internal_error (Herald's fault), not 409", async () => {
    const path = '/no-key-test-send';
    const subscription = await s.subscribe(path);
    await s.app.store.subscriptions.keys.deleteOne({ _id: subscription.keyId });
    await assert.rejects(
      s.alice.client.sendTestDelivery(subscription.id),
      (err: unknown) =>
        err instanceof HeraldApiError &&
        err.status === 500 &&
        err.body?.error === 'internal_error' &&
        !err.body.message,
    );
    assert.equal(s.requestsTo(path).length, 0, 'nothing sent');
    const [delivery] = (await s.alice.client.listDeliveriesPage({ subscriptionId: subscription.id })).deliveries;
    assert.deepEqual([delivery?.status, delivery?.terminalReason], ['failed', 'signing_key_unavailable']);
  });
});
