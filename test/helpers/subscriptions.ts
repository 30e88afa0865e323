import assert from 'node:assert/strict';
import { HeraldApiError } from '../../src/client/http.js';

/** Names of HERALD_DNS_STATIC for subscription tests: two public hosts and one that resolves privately. */
export const SUBSCRIPTION_DNS =
  'hooks.example.com=93.184.216.34,other.example.com=93.184.216.35,rebind.example.com=10.0.0.5';
export const HOOK_URL = 'https://hooks.example.com/herald';
export const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
/** An id derived from an Idempotency-Key (src/api/plugins/app/idempotency.ts keyedId). */
export const UUID_V5 = /^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** Asserts an API error by status, code and (optionally) message. */
export async function rejectsWith(
  promise: Promise<unknown>,
  status: number,
  error: string,
  message?: RegExp,
): Promise<void> {
  await assert.rejects(promise, (err: unknown) => {
    assert.ok(err instanceof HeraldApiError, String(err));
    assert.equal(err.status, status, err.message);
    assert.equal(err.body?.error, error, err.message);
    assert.equal(err.body?.status, status);
    if (message) assert.match(err.body?.message ?? '', message);
    return true;
  });
}

/** Asserts the exact §7 not-found answer: `{"error":"not_found","status":404}` and nothing else. */
export async function rejectsNotFound(promise: Promise<unknown>, what = ''): Promise<void> {
  await assert.rejects(promise, (err: unknown) => {
    assert.ok(err instanceof HeraldApiError, `${what}: ${String(err)}`);
    assert.equal(err.status, 404, what);
    assert.equal(JSON.stringify(err.body), '{"error":"not_found","status":404}', what);
    return true;
  });
}

/** Every route addressing one subscription, with a valid body where one is needed. */
export function subscriptionRoutesFor(id: string): Array<[method: string, path: string, body: unknown]> {
  const path = `/v1/webhooks/subscriptions/${id}`;
  return [
    ['GET', path, undefined],
    ['PATCH', path, { description: 'x' }],
    ['DELETE', path, undefined],
    ['POST', `${path}/rotate-key`, undefined],
    ['GET', `${path}/keys`, undefined],
  ];
}
