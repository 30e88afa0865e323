// The signed client's retries (issue 45 item 1): a POST carries one Idempotency-Key, the same on each retry of the
// call and re-signed each time; a network error, a 5xx, a 429 and a 409 with Retry-After are retried, another 4xx
// is not; after maxRetries the last answer stands. On a fake fetch: no server.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { HeraldClient } from '../../src/client/herald-client.js';
import { HeraldApiError } from '../../src/client/http.js';
import { retryDelayMs } from '../../src/client/retries.js';
import { newKeyPair } from '../helpers/integrators.js';

type Sent = { key: string | null; timestamp: string | null; signature: string | null };

/** A client whose fetch answers from `answers` in turn (an Error is thrown as a network failure). */
function scripted(answers: Array<Response | Error>, maxRetries?: number) {
  const sent: Sent[] = [];
  const client = new HeraldClient({
    baseUrl: 'http://127.0.0.1:1',
    privateKey: newKeyPair().privateKey,
    ...(maxRetries === undefined ? {} : { maxRetries }),
    fetch: async (_url, init) => {
      const headers = new Headers(init?.headers);
      sent.push({
        key: headers.get('idempotency-key'),
        timestamp: headers.get('x-timestamp'),
        signature: headers.get('x-signature'),
      });
      const next = answers.shift();
      if (!next || next instanceof Error) throw next ?? new Error('no more answers');
      return next;
    },
  });
  return { client, sent };
}
const json = (status: number, body: object, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });
const now = { 'retry-after': '0' };

describe('the signed client retries', () => {
  it('sends a POST again after a 503, a 429 and a network error, with one key, re-signed each time', async () => {
    const { client, sent } = scripted(
      [json(503, { error: 'overloaded', status: 503 }, now), new TypeError('fetch failed'), json(201, { id: 'x' })],
      2,
    );
    assert.deepEqual(await client.request('POST', '/v1/webhooks/subscriptions', { body: { url: 'u' } }), { id: 'x' });
    assert.equal(sent.length, 3);
    assert.equal(new Set(sent.map((s) => s.key)).size, 1, 'one key for the call');
    assert.match(String(sent[0]?.key), /^[0-9a-f-]{36}$/);
    assert.equal(new Set(sent.map((s) => s.signature)).size, 3, 're-signed each time');
  });

  it('waits out a 409 idempotency_in_flight (it has Retry-After) and not a 422 or a 400', async () => {
    const busy = json(409, { error: 'idempotency_in_flight', status: 409 }, now);
    const first = scripted([busy, json(200, { ok: true })]);
    assert.deepEqual(await first.client.request('POST', '/x', { body: {} }), { ok: true });
    for (const status of [400, 404, 409, 422]) {
      const { client, sent } = scripted([json(status, { error: 'no', status }), json(200, {})]);
      await assert.rejects(client.request('POST', '/x', { body: {} }), (e: unknown) => e instanceof HeraldApiError);
      assert.equal(sent.length, 1, `${status} is not retried`);
    }
  });

  it('gives up after maxRetries with the last answer; 0 turns retries off; a GET carries no key', async () => {
    const failing = () => json(502, { error: 'bad_gateway', status: 502 }, now);
    const { client, sent } = scripted([failing(), failing(), failing(), json(200, {})], 2);
    await assert.rejects(client.request('GET', '/x'), (e: unknown) => e instanceof HeraldApiError && e.status === 502);
    assert.equal(sent.length, 3);
    assert.equal(sent[0]?.key, null);
    const off = scripted([failing(), json(200, {})], 0);
    await assert.rejects(off.client.request('POST', '/x', { body: {} }));
    assert.equal(off.sent.length, 1);
  });

  it('waits Retry-After (up to 10 s) or an exponential back-off with jitter', () => {
    assert.equal(retryDelayMs('3', 0), 3_000);
    assert.equal(retryDelayMs('3600', 0), 10_000);
    for (const [retry, cap] of [
      [0, 500],
      [1, 1_000],
      [2, 2_000],
      [6, 8_000],
    ] as const) {
      const wait = retryDelayMs(null, retry);
      assert.ok(wait >= cap / 2 && wait <= cap, `retry ${retry}: ${wait} ms`);
    }
  });
});
