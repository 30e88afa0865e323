// Subscription signing keys: no private key material in plaintext in the raw `subscriptions` and `signing_keys`
// documents, in any API answer or in the logs; `publicKey` is a valid compressed P-256 point (checked with
// @noble/curves) of the very key the delivery activity signs with, before and after a rotation.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID, type KeyObject } from 'node:crypto';
import { Writable } from 'node:stream';
import { p256 } from '@noble/curves/nist.js';
import type { FastifyInstance } from 'fastify';
import { BSON } from 'mongodb';
import { createActivities } from '../../activities/index.js';
import { buildApp } from '../../src/process/app.js';
import { HeraldClient, type Subscription } from '../../src/client/herald-client.js';
import { compressedHexOf } from '../../src/crypto/p256.js';
import { signWebhook } from '../../src/crypto/webhook-signature.js';
import { createWebhookHttpClient, type WebhookHttpClient } from '../../src/net/http-client.js';
import { signedInput, WebhookVerifier } from '../../src/receiver/index.js';
import type { SigningKeyDoc } from '../../src/store/documents.js';
import { assertSignedDelivery, lifecycleEvent } from '../helpers/deliveries.js';
import { testConfig } from '../helpers/env.js';
import { listen, registerIntegrator } from '../helpers/integrators.js';
import { startHttpsReceiver, type HttpsReceiver } from '../helpers/receiver.js';

/** Every plaintext encoding of a private key we know of: PEM, DER (PKCS#8, SEC1), JWK `d`, the raw scalar. */
function encodingsOf(key: KeyObject): Array<[name: string, needle: Buffer]> {
  const scalar = Buffer.from(key.export({ format: 'jwk' }).d ?? '', 'base64url');
  assert.equal(scalar.length, 32);
  const pkcs8 = key.export({ format: 'der', type: 'pkcs8' });
  const sec1 = key.export({ format: 'der', type: 'sec1' });
  const texts = (name: string, bytes: Buffer): Array<[string, Buffer]> => [
    [`${name} bytes`, bytes],
    ...(['hex', 'base64', 'base64url'] as const).map((enc): [string, Buffer] => [
      `${name} ${enc}`,
      Buffer.from(bytes.toString(enc)),
    ]),
    [`${name} HEX`, Buffer.from(bytes.toString('hex').toUpperCase())],
  ];
  return [
    ...texts('scalar', scalar),
    ...texts('pkcs8 DER', pkcs8),
    ...texts('sec1 DER', sec1),
    ['pkcs8 PEM', Buffer.from(String(key.export({ format: 'pem', type: 'pkcs8' })))],
    ['sec1 PEM', Buffer.from(String(key.export({ format: 'pem', type: 'sec1' })))],
    ['PEM marker', Buffer.from('PRIVATE KEY')],
  ];
}

function assertAbsent(haystack: Buffer, needles: Array<[string, Buffer]>, where: string): void {
  for (const [name, needle] of needles) assert.equal(haystack.indexOf(needle), -1, `${name} found in ${where}`);
}

describe('subscription signing keys at rest and in use', () => {
  let app: FastifyInstance;
  let client: HeraldClient;
  let integratorId: string;
  let receiver: HttpsReceiver;
  let http: WebhookHttpClient;
  const logs: Buffer[] = [];
  const answers: Buffer[] = [];

  before(async () => {
    receiver = await startHttpsReceiver();
    const config = testConfig({
      HERALD_DNS_STATIC: 'hooks.example.com=127.0.0.1',
      HERALD_ALLOW_CIDRS: '127.0.0.1/32',
      LOG_LEVEL: 'trace',
    });
    // The most verbose logs this app can write, kept to search them for key material.
    const stream = new Writable({
      write(chunk: Buffer, _encoding, done) {
        logs.push(chunk);
        done();
      },
    });
    app = await buildApp({ config, logger: { level: 'trace', stream } });
    await app.ready();
    const baseUrl = await listen(app);
    const acme = await registerIntegrator(app, baseUrl, 'acme');
    integratorId = acme.integratorId;
    // Every answer body the API gives is kept too.
    const keep: typeof fetch = async (input, init) => {
      const res = await fetch(input, init);
      answers.push(Buffer.from(await res.clone().arrayBuffer()));
      return res;
    };
    client = new HeraldClient({ baseUrl, privateKey: acme.privateKey, fetch: keep });
    http = createWebhookHttpClient({ policy: app.callbackUrls, userAgent: 'Herald-test' });
  });
  after(async () => {
    await http.close();
    await receiver.close();
    await app.mongo.db.dropDatabase().catch(() => undefined);
    await app.close();
  });

  const url = () => `https://hooks.example.com:${receiver.port}/hook`;
  const openKey = (doc: SigningKeyDoc) => app.vault.open(doc.sealed, doc.subscriptionId);

  it('stores no private key in plaintext: not in raw BSON, documents, API answers or logs', async () => {
    const made: Subscription[] = [];
    for (let i = 0; i < 3; i++) made.push(await client.createSubscription({ url: url(), description: `s${i}` }));
    await client.rotateSubscriptionKey(made[0]!.id);
    await client.rotateSubscriptionKey(made[0]!.id);
    for await (const s of client.listSubscriptions()) assert.ok(s.keys.length >= 1);

    const keyDocs = await app.store.subscriptions.keys.find({}).toArray();
    assert.equal(keyDocs.length, 5);
    const needles = keyDocs.flatMap((doc) => {
      assert.equal(doc.sealed.alg, 'A256GCM');
      assert.equal(doc.sealed.kid, app.vault.kid);
      // Sealed to its own subscription: the same bytes under another subscription id do not open.
      const other = keyDocs.find((d) => d.subscriptionId !== doc.subscriptionId)!;
      assert.throws(() => app.vault.open(doc.sealed, other.subscriptionId), /authentication failed/);
      return encodingsOf(openKey(doc));
    });

    const haystacks: Array<[string, Buffer]> = [];
    for (const name of ['subscriptions', 'signing_keys']) {
      const docs = await app.mongo.db.collection(name).find({}).toArray();
      assert.ok(docs.length > 0);
      for (const doc of docs) {
        haystacks.push([`${name} BSON`, Buffer.from(BSON.serialize(doc))]);
        haystacks.push([`${name} EJSON`, Buffer.from(BSON.EJSON.stringify(doc, { relaxed: false }))]);
        assert.ok(!/"(d|kty|privateKey|pem)"/.test(BSON.EJSON.stringify(doc)), `no key-shaped field in ${name}`);
      }
      // The bytes exactly as the server sent them, undecoded.
      const raw = await app.mongo.db.collection(name).find({}, { raw: true }).toArray();
      for (const bytes of raw as unknown as Uint8Array[]) haystacks.push([`${name} raw`, Buffer.from(bytes)]);
    }
    haystacks.push(['API answers', Buffer.concat(answers)], ['logs', Buffer.concat(logs)]);
    assert.match(
      Buffer.concat(logs).toString(),
      /"route":"\/v1\/webhooks\/subscriptions\/:subscription_id\/rotate-key"/,
    );
    assert.equal(answers.length, 6, 'three creations, two rotations, one listing');
    for (const [where, haystack] of haystacks) assertAbsent(haystack, needles, where);

    // The search does find a key when one is there, in each encoding.
    for (const [name, needle] of encodingsOf(openKey(keyDocs[0]!))) {
      assert.throws(() => assertAbsent(Buffer.concat([haystacks[0]![1], needle]), [[name, needle]], 'planted'));
    }
  });

  it('gives a publicKey that noble decodes as a compressed point of the key that signs', async () => {
    const a = await client.createSubscription({ url: url() });
    const b = await client.createSubscription({ url: url() });
    for (const s of [a, b]) {
      assert.match(s.publicKey, /^0[23][0-9a-f]{64}$/);
      const point = p256.Point.fromHex(s.publicKey);
      point.assertValidity();
      assert.equal(Buffer.from(point.toBytes(true)).toString('hex'), s.publicKey);
      const doc = await app.store.subscriptions.findKey(s.keyId);
      assert.ok(doc);
      const privateKey = openKey(doc);
      assert.equal(compressedHexOf(privateKey), s.publicKey);
      const scalar = Buffer.from(privateKey.export({ format: 'jwk' }).d ?? '', 'base64url');
      assert.equal(Buffer.from(p256.getPublicKey(scalar, true)).toString('hex'), s.publicKey, 'noble derives it');

      const deliveryId = randomUUID();
      const body = '{"id":"e","eventType":"customer.created"}';
      const signature = Buffer.from(signWebhook(privateKey, deliveryId, 1_700_000_000, body), 'hex');
      const input = signedInput(deliveryId, 1_700_000_000, body);
      assert.ok(p256.verify(signature, input, Buffer.from(s.publicKey, 'hex'), { lowS: false }));
      const other = s === a ? b : a;
      assert.ok(!p256.verify(signature, input, Buffer.from(other.publicKey, 'hex'), { lowS: false }));
    }
  });

  it('signs deliveries with the active key, and with the new one after a rotation', async () => {
    const { attemptDelivery } = createActivities({
      store: app.store,
      vault: app.vault,
      http,
      activityAttempt: () => 1,
    });
    const created = await client.createSubscription({ url: url() });
    const deliver = async () => {
      const event = lifecycleEvent(integratorId);
      await app.store.events.insertOnce(event);
      const delivery = await app.store.deliveries.createOnce({
        integratorId,
        subscriptionId: created.id,
        eventId: event._id,
        eventType: event.eventType,
      });
      const before = receiver.requests.length;
      const result = await attemptDelivery({
        deliveryId: delivery._id,
        attemptNumber: 1,
        actor: 'system',
        followSchedule: true,
      });
      assert.equal(result.outcome, 'succeeded');
      const request = receiver.requests[before];
      assert.ok(request);
      return request;
    };

    const first = await deliver();
    assertSignedDelivery(first, created.publicKey);
    assert.equal(first.headers['x-service-webhook-key-id'], created.keyId);

    const rotated = await client.rotateSubscriptionKey(created.id);
    const second = await deliver();
    assertSignedDelivery(second, rotated.publicKey);
    assert.equal(second.headers['x-service-webhook-key-id'], rotated.keyId);
    assert.throws(() => assertSignedDelivery(second, created.publicKey), 'the old key does not verify new deliveries');

    // A receiver that trusts every listed key verifies deliveries from before and after the rotation by key id.
    const verifier = WebhookVerifier.fromKeys(Object.fromEntries(rotated.keys.map((k) => [k.keyId, k.publicKey])));
    for (const request of [first, second]) assert.ok(verifier.verify(request.body, request.headers));
  });
});
