// Issue 45 item 1: Idempotency-Key on the integrator's POSTs, over real HTTP on the real stack (dev server, worker,
// HTTPS receiver). A repeat with the same key and body answers the first answer; another body 422; a repeat while the
// first runs 409 with Retry-After; a create whose answer is lost, sent again 20 times at once (each re-signed), makes
// one subscription; ids derived from the key make a try after a crashed one find what that one made.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { requestSigningInput, signRequest } from '../../src/crypto/request-signature.js';
import { idempotencyIdOf } from '../../src/api/plugins/app/idempotency.js';
import { newSigningKey } from '../../src/api/subscription-input.js';
import { HeraldClient } from '../../src/client/herald-client.js';
import { uuidV5 } from '../../src/store/derived-ids.js';
import { HeraldApiError } from '../../src/client/http.js';
import { eventually } from '../helpers/deliveries.js';
import { startDeliveryStack, type DeliveryStack } from '../helpers/delivery-stack.js';
import { registerIntegrator, type TestIntegrator } from '../helpers/integrators.js';

const SUBSCRIPTIONS = '/v1/webhooks/subscriptions';

describe('Idempotency-Key on the integrator POSTs', () => {
  let s: DeliveryStack;
  let bob: TestIntegrator;
  before(async () => {
    s = await startDeliveryStack();
    bob = await registerIntegrator(s.app, s.baseUrl, 'bob-idempotent');
  });
  after(async () => s.stop());

  /** One signed POST of alice's with this timestamp offset (s), so requests sent together are distinct messages. */
  async function post(path: string, body: unknown, key: string | undefined, offsetSec = 0, who = s.alice) {
    const bytes = Buffer.from(JSON.stringify(body));
    const timestamp = String(Math.floor(Date.now() / 1000) + offsetSec);
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      'x-pubkey': who.pubkey,
      'x-timestamp': timestamp,
      'x-signature': signRequest(who.privateKey, requestSigningInput(timestamp, 'POST', path, bytes)),
    };
    if (key !== undefined) headers['idempotency-key'] = key;
    const res = await fetch(`${s.baseUrl}${path}`, { method: 'POST', headers, body: bytes });
    return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, unknown> };
  }
  const url = (path: string) => `https://hooks.example.com:${s.receiver.port}${path}`;
  const subscriptionsOf = async (who: TestIntegrator) =>
    (await who.client.listSubscriptionsPage({ limit: 250 })).subscriptions;

  it('answers a repeat with the first answer, another body with 422, and keeps keys apart per integrator', async () => {
    const key = randomUUID();
    const body = { url: url('/idem-create'), eventTypes: ['customer.created'] };
    const first = await post(SUBSCRIPTIONS, body, key);
    assert.equal(first.status, 201);
    assert.equal(first.headers.get('idempotent-replayed'), null);
    const again = await post(SUBSCRIPTIONS, body, key, 1);
    assert.equal(again.status, 201);
    assert.equal(again.headers.get('idempotent-replayed'), 'true');
    assert.deepEqual(again.body, first.body, 'the same answer, byte for byte as JSON');
    assert.equal(again.headers.get('location'), first.headers.get('location'));
    const created = (await subscriptionsOf(s.alice)).filter((sub) => sub.url === body.url);
    assert.equal(created.length, 1);

    const other = await post(SUBSCRIPTIONS, { ...body, description: 'another body' }, key, 2);
    assert.equal(other.status, 422);
    assert.equal(other.body.error, 'idempotency_key_reused');
    assert.equal((await subscriptionsOf(s.alice)).filter((sub) => sub.url === body.url).length, 1);

    const bobs = await post(SUBSCRIPTIONS, body, key, 0, bob);
    assert.equal(bobs.status, 201, "bob's key of the same text is his own");
    assert.notEqual(bobs.body.id, first.body.id);
  });

  it('refuses a malformed key with 400 and makes nothing', async () => {
    const before = (await subscriptionsOf(s.alice)).length;
    for (const [i, key] of ['', 'has space', 'x'.repeat(256)].entries()) {
      const res = await post(SUBSCRIPTIONS, { url: url('/idem-bad') }, key, i);
      assert.equal(res.status, 400, JSON.stringify(key));
      assert.equal(res.body.error, 'invalid_request');
    }
    assert.equal((await subscriptionsOf(s.alice)).length, before);
  });

  it('makes one subscription of a create sent again 20 times at once, each re-signed', async () => {
    const key = randomUUID();
    const body = { url: url('/idem-twenty') };
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => post(SUBSCRIPTIONS, body, key, i - 10)));
    const ids = new Set(answers.filter((a) => a.status === 201).map((a) => a.body.id));
    assert.equal(ids.size, 1, `one id among the 201s: ${JSON.stringify(answers.map((a) => a.status))}`);
    for (const busy of answers.filter((a) => a.status !== 201)) {
      assert.equal(busy.status, 409);
      assert.equal(busy.body.error, 'idempotency_in_flight');
      assert.equal(busy.headers.get('retry-after'), '1');
    }
    // Each that was told to wait, sent again after Retry-After, gets the same subscription.
    await new Promise((r) => setTimeout(r, 1_000));
    const later = await Promise.all(
      answers.filter((a) => a.status !== 201).map((_, i) => post(SUBSCRIPTIONS, body, key, 20 + i)),
    );
    for (const a of later) assert.deepEqual([a.status, a.body.id], [201, [...ids][0]]);
    assert.equal((await subscriptionsOf(s.alice)).filter((sub) => sub.url === body.url).length, 1);
  });

  it('goes on after a try that crashed mid-create: the derived id finds what it made, indexed', async () => {
    const key = randomUUID();
    const body = { url: url('/idem-crash') };
    // A crashed try: it created the subscription (the id derived from its key), and its key's lock has run out.
    const derived = uuidV5(`subscription:${idempotencyIdOf(s.alice.integratorId, key)}`);
    const made = await s.app.store.subscriptions.create(
      { _id: derived, integratorId: s.alice.integratorId, url: body.url, eventTypes: 'all', description: null },
      newSigningKey(s.app.vault, derived),
    );
    const res = await post(SUBSCRIPTIONS, body, key);
    assert.equal(res.status, 201);
    assert.equal(res.body.id, made.subscription._id, 'the subscription the crashed try made');
    assert.equal((await subscriptionsOf(s.alice)).filter((sub) => sub.url === body.url).length, 1);
  });

  it('answers 409 idempotency_in_flight while a test send runs, then its one answer; one request made', async () => {
    const subscription = await s.subscribe('/idem-test-send');
    s.delays.set('/idem-test-send', 2_000);
    const path = `${SUBSCRIPTIONS}/${subscription.id}/test`;
    const key = randomUUID();
    const first = post(path, {}, key);
    await eventually(() => (s.requestsTo('/idem-test-send').length === 1 ? true : undefined), 5_000, 'first sent');
    const meanwhile = await post(path, {}, key, 1);
    assert.equal(meanwhile.status, 409);
    assert.equal(meanwhile.body.error, 'idempotency_in_flight');
    const answered = await first;
    assert.equal(answered.status, 201);
    const replayed = await post(path, {}, key, 2);
    assert.equal(replayed.status, 201);
    assert.equal(replayed.headers.get('idempotent-replayed'), 'true');
    assert.deepEqual(replayed.body, answered.body);
    assert.equal(s.requestsTo('/idem-test-send').length, 1, 'one request to the receiver');
    s.delays.delete('/idem-test-send');
  });

  it('the signed client sends a key with every POST and sends again after a 409 until it has the answer', async () => {
    const subscription = await s.subscribe('/idem-client');
    s.delays.set('/idem-client', 1_500);
    const key = randomUUID();
    const path = `${SUBSCRIPTIONS}/${subscription.id}/test`;
    const direct = post(path, {}, key, -5); // not the second the client signs in: another message
    await eventually(() => (s.requestsTo('/idem-client').length === 1 ? true : undefined), 5_000, 'first sent');
    const client = new HeraldClient({ baseUrl: s.baseUrl, privateKey: s.alice.privateKey }); // retries on (default)
    const viaClient = await client.request<Record<string, unknown>>('POST', path, { body: {}, idempotencyKey: key });
    assert.deepEqual(viaClient, (await direct).body, 'the client waited out the 409 and got the first answer');
    assert.equal(s.requestsTo('/idem-client').length, 1);
    await assert.rejects(
      client.request('POST', path, { body: { other: 1 }, idempotencyKey: key }),
      (err: unknown) => err instanceof HeraldApiError && err.status === 422,
      'another body under the same key: 422, not sent again',
    );
    const sent: Array<string | null> = [];
    const recording = new HeraldClient({
      baseUrl: s.baseUrl,
      privateKey: s.alice.privateKey,
      fetch: async (input, init) => {
        sent.push(new Headers(init?.headers).get('idempotency-key'));
        return await fetch(input, init);
      },
    });
    await recording.createSubscription({ url: url('/idem-client-key') });
    await recording.listSubscriptionsPage();
    assert.match(String(sent[0]), /^[0-9a-f-]{36}$/, 'a POST carries a key');
    assert.equal(sent[1], null, 'a GET carries none');
    s.delays.delete('/idem-client');
  });
});
