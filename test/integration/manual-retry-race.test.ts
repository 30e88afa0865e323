// Issue 11 item 4: ten concurrent manual retries of one delivery, waiting or finished, on the real stack (dev server,
// worker, HTTPS receiver). They coalesce, none answers 5xx, no stale status is left, and every POST the receiver got
// is a recorded attempt with its own number.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Delivery } from '../../src/client/herald-client.js';
import { requestSigningInput, signRequest } from '../../src/crypto/request-signature.js';
import { eventually } from '../helpers/deliveries.js';
import { startDeliveryStack, type DeliveryStack } from '../helpers/delivery-stack.js';

const CONCURRENT = 10;

describe('ten concurrent manual retries of one delivery', () => {
  let s: DeliveryStack;
  /** Per path: how long the receiver waits before answering, and with what status. */
  const behaviour = new Map<string, { status: number; delayMs: number }>();
  before(async () => {
    s = await startDeliveryStack();
    s.receiver.respond((r) => behaviour.get(r.url) ?? { status: 204 });
  });
  after(async () => s.stop());

  /** A delivery to a fresh subscription at `path` once its first attempt has been recorded as `status`. */
  async function firstAttempted(path: string, status: 'pending' | 'succeeded'): Promise<Delivery> {
    const subscription = await s.subscribe(path);
    const eventId = await s.publish();
    return await eventually(async () => {
      const [d] = await s.deliveriesOf(eventId, subscription.id);
      return d && d.attemptCount === 1 && d.status === status ? d : undefined;
    });
  }

  /**
   * Fires the retries at once over real HTTP. Each is signed under its own timestamp (the last seconds not used yet for
   * this path, inside the tolerance window): the replay cache would refuse ten identical ones, and HeraldClient spaces them a second
   * apart for that reason. Every one must answer 202 with the delivery.
   */
  const signedAt = new Set<string>();
  async function retryConcurrently(id: string): Promise<Delivery[]> {
    const path = `/v1/webhooks/deliveries/${id}/retry`;
    const now = Math.floor(Date.now() / 1000);
    const timestamps: string[] = [];
    for (let t = now; timestamps.length < CONCURRENT && t > now - 55; t--)
      if (!signedAt.has(`${path}@${t}`)) timestamps.push(String(t));
    assert.equal(timestamps.length, CONCURRENT, 'fresh timestamps left in the window');
    for (const t of timestamps) signedAt.add(`${path}@${t}`);
    const answers = await Promise.all(
      timestamps.map(async (timestamp) => {
        const signature = signRequest(s.alice.privateKey, requestSigningInput(timestamp, 'POST', path));
        const res = await fetch(`${s.baseUrl}${path}`, {
          method: 'POST',
          headers: { 'x-pubkey': s.alice.pubkey, 'x-timestamp': timestamp, 'x-signature': signature },
        });
        return { status: res.status, body: (await res.json()) as Delivery };
      }),
    );
    assert.deepEqual(
      answers.map((a) => a.status),
      answers.map(() => 202),
      `every retry answers 202: ${JSON.stringify(answers.filter((a) => a.status !== 202))}`,
    );
    return answers.map((a) => a.body);
  }

  /**
   * Once the receiver has had `atLeast` POSTs and nothing more arrives for 2 s: the recorded attempts, each with its
   * own number, 1…n, and exactly as many as the POSTs received.
   */
  async function quiescent(path: string, id: string, atLeast: number) {
    await eventually(() => (s.requestsTo(path).length >= atLeast ? true : undefined), 20_000);
    let seen = -1;
    await eventually(async () => {
      const now = s.requestsTo(path).length;
      if (now === seen) return true;
      seen = now;
      await new Promise((r) => setTimeout(r, 2000));
      return undefined;
    }, 60_000);
    const detail = await s.alice.client.getDelivery(id);
    const numbers = detail.attempts.map((a) => a.attemptNumber);
    assert.deepEqual(
      numbers,
      numbers.map((_, i) => i + 1),
      'attempt numbers 1…n, each once',
    );
    assert.equal(s.requestsTo(path).length, detail.attempts.length, 'every POST received is a recorded attempt');
    const deliveryIds = new Set(s.requestsTo(path).map((r) => r.headers['x-service-webhook-delivery-id']));
    assert.deepEqual([...deliveryIds], [id]);
    return detail;
  }

  it('a waiting delivery: one attempt at once for all ten, the schedule kept', async () => {
    behaviour.set('/race-waiting', { status: 500, delayMs: 0 });
    const delivery = await firstAttempted('/race-waiting', 'pending');
    behaviour.set('/race-waiting', { status: 500, delayMs: 1000 }); // all ten arrive while it runs
    const started = Date.now();
    const answers = await retryConcurrently(delivery.id);
    for (const a of answers) assert.equal(a.status, 'pending');
    const detail = await quiescent('/race-waiting', delivery.id, 2);
    assert.ok(Date.now() - started < 25_000, 'attempted at once, not after the 30 s wait');
    assert.deepEqual(
      detail.attempts.map((a) => [a.attemptNumber, a.actor]),
      [
        [1, 'system'],
        [2, 'manual'],
      ],
      'ten requests reaching one run make one attempt',
    );
    assert.equal(detail.status, 'pending');
    assert.equal(detail.attemptCount, 2);
    assert.ok(detail.nextAttemptAt && Date.parse(detail.nextAttemptAt) > Date.now() + 20_000, 'next in ~60 s');
  });

  it('a finished delivery: one more attempt for all ten, and it ends finished again', async () => {
    const delivery = await firstAttempted('/race-finished', 'succeeded');
    behaviour.set('/race-finished', { status: 204, delayMs: 1000 });
    const answers = await retryConcurrently(delivery.id);
    for (const a of answers) assert.equal(a.status, 'pending', 'answered as the pending re-run it is');
    const detail = await quiescent('/race-finished', delivery.id, 2);
    assert.deepEqual(
      detail.attempts.map((a) => [a.attemptNumber, a.outcome, a.actor]),
      [
        [1, 'succeeded', 'system'],
        [2, 'succeeded', 'manual'],
      ],
    );
    assert.equal(detail.status, 'succeeded', 'no stale pending written over the finished attempt');
    assert.equal(detail.attemptCount, 2);
  });

  for (const status of [204, 500] as const) {
    const final = status === 204 ? 'succeeded' : 'failed';
    it(`a finished delivery, a quick receiver answering ${status}, three rounds: runs close amid the requests, nothing lost or stale`, async () => {
      const path = `/race-quick-${status}`;
      const delivery = await firstAttempted(path, 'succeeded');
      // Answers within 0–150 ms: runs end while later requests of the same round are still arriving.
      s.receiver.respond((r) =>
        r.url === path ? { status, delayMs: Math.floor(Math.random() * 150) } : { status: 204 },
      );
      try {
        for (let round = 1; round <= 3; round++) {
          const before = s.requestsTo(path).length;
          await retryConcurrently(delivery.id);
          const detail = await quiescent(path, delivery.id, before + 1);
          assert.ok(detail.attempts.length <= before + CONCURRENT, `round ${round}: at most one attempt per request`);
          assert.equal(detail.status, final, `round ${round}: no stale pending left behind`);
          assert.equal(detail.attemptCount, detail.attempts.length);
          for (const a of detail.attempts.slice(1)) assert.equal(a.actor, 'manual');
        }
      } finally {
        s.receiver.respond((r) => behaviour.get(r.url) ?? { status: 204 });
      }
    });
  }
});
