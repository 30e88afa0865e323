// Spec §5: the three headers, the tamper matrix, the ±60 s window, replay and malleability, one 401 body for all.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { FastifyInstance } from 'fastify';
import { p256 } from '@noble/curves/nist.js';
import { requestSigningInput, signRequest } from '../../src/crypto/request-signature.js';
import { buildTestApp, closeTestApp } from '../helpers/app.js';
import { adminHeaders, listen, registerIntegrator, type TestIntegrator } from '../helpers/integrators.js';

const UNAUTHORIZED = { error: 'unauthorized', status: 401 };
const N = p256.Point.CURVE().n;

interface Req {
  method: string;
  target: string;
  body: string;
  timestamp: string;
  pubkey: string;
  signature: string;
}

/** A test-only route that echoes what it got, behind the same auth as every /v1 route. */
function echoRoute(app: FastifyInstance): void {
  app.route({
    method: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'],
    url: '/v1/echo/:id',
    handler: async (request) => ({ integratorId: request.integratorId, body: request.body ?? null }),
  });
}

describe('integrator authentication (real app)', () => {
  let app: FastifyInstance;
  let acme: TestIntegrator;
  let baseUrl: string;
  let counter = 0;

  before(async () => {
    ({ app } = await buildTestApp({}, echoRoute));
    baseUrl = await listen(app);
    acme = await registerIntegrator(app, baseUrl);
  });
  after(async () => closeTestApp(app));

  /** A freshly signed request with a unique query, so replay protection never interferes by accident. */
  function signed(method = 'POST', offsetSec = 0): Req {
    const body = method === 'GET' || method === 'DELETE' ? '' : JSON.stringify({ hello: 'wörld', n: ++counter });
    const target = `/v1/echo/abc123?q=x%20y&n=${++counter}`;
    const timestamp = String(Math.floor(Date.now() / 1000) + offsetSec);
    const msg = requestSigningInput(timestamp, method, target, Buffer.from(body));
    return { method, target, body, timestamp, pubkey: acme.pubkey, signature: signRequest(acme.privateKey, msg) };
  }

  async function send(r: Req): Promise<{ status: number; body: unknown }> {
    const res = await app.inject({
      method: r.method as 'POST',
      url: r.target,
      headers: {
        'x-pubkey': r.pubkey,
        'x-timestamp': r.timestamp,
        'x-signature': r.signature,
        ...(r.body ? { 'content-type': 'application/json' } : {}),
      },
      payload: r.body || undefined,
    });
    return { status: res.statusCode, body: res.json() };
  }

  const flip = (s: string, i: number): string =>
    s.slice(0, i) + String.fromCharCode(s.charCodeAt(i) ^ 0x01) + s.slice(i + 1);

  it('accepts a correctly signed request and scopes it to the integrator', async () => {
    const res = await send(signed());
    assert.equal(res.status, 200);
    assert.equal((res.body as { integratorId: string }).integratorId, acme.integratorId);
  });

  it('rejects a flip of any byte of the body, query, path parameter, timestamp, public key or signature', async () => {
    const causes: Array<[string, (r: Req) => Req[]]> = [
      ['body', (r) => [...r.body].map((_, i) => ({ ...r, body: flip(r.body, i) })).filter((x) => isJson(x.body))],
      ['path', (r) => [9, 10, 11, 12, 13, 14].map((i) => ({ ...r, target: flip(r.target, i) }))],
      [
        'query',
        (r) => range(r.target.indexOf('?') + 1, r.target.length).map((i) => ({ ...r, target: flip(r.target, i) })),
      ],
      ['timestamp', (r) => range(0, r.timestamp.length).map((i) => ({ ...r, timestamp: flip(r.timestamp, i) }))],
      ['pubkey', (r) => range(2, r.pubkey.length).map((i) => ({ ...r, pubkey: flip(r.pubkey, i) }))],
      ['signature', (r) => range(2, r.signature.length).map((i) => ({ ...r, signature: flip(r.signature, i) }))],
      ['method', (r) => ['PUT', 'PATCH'].map((method) => ({ ...r, method }))],
    ];
    for (const [part, variants] of causes) {
      const original = signed();
      const tampered = variants(original);
      assert.ok(tampered.length > 0, part);
      for (const t of tampered) {
        const res = await send(t);
        assert.equal(res.status, 401, `${part}: ${JSON.stringify(t)}`);
        assert.deepEqual(res.body, UNAUTHORIZED);
      }
      assert.equal((await send(original)).status, 200, `${part}: the untampered request still passes`);
    }
  });

  it('rejects a replay, also as the high-S twin of the signature', async () => {
    const r = signed();
    assert.equal((await send(r)).status, 200);
    assert.deepEqual(await send(r), { status: 401, body: UNAUTHORIZED });
    const sig = p256.Signature.fromBytes(Buffer.from(r.signature.slice(2), 'hex'), 'der');
    const twin = new p256.Signature(sig.r, N - sig.s);
    const twinHex = `0x${Buffer.from(twin.toBytes('der')).toString('hex')}`;
    assert.notEqual(twinHex, r.signature);
    const fresh = signed();
    const freshSig = p256.Signature.fromBytes(Buffer.from(fresh.signature.slice(2), 'hex'), 'der');
    const freshTwin = `0x${Buffer.from(new p256.Signature(freshSig.r, N - freshSig.s).toBytes('der')).toString('hex')}`;
    assert.equal((await send({ ...fresh, signature: freshTwin })).status, 200, 'OpenSSL accepts the high-S twin once');
    assert.deepEqual(await send({ ...r, signature: twinHex }), { status: 401, body: UNAUTHORIZED });
    assert.deepEqual(await send(fresh), { status: 401, body: UNAUTHORIZED });
  });

  it('answers a repeated signed GET (a client retrying a read); refuses every repeated state-changing request', async () => {
    const get = signed('GET');
    assert.equal((await send(get)).status, 200);
    assert.equal((await send(get)).status, 200, 'the same signed GET again, within the same second');
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE']) {
      const r = signed(method);
      assert.equal((await send(r)).status, 200, method);
      assert.deepEqual(await send(r), { status: 401, body: UNAUTHORIZED }, `a repeated ${method}`);
    }
  });

  it('accepts timestamps at ±59 s and rejects ±61 s', async () => {
    assert.equal((await send(signed('POST', 59))).status, 200);
    assert.equal((await send(signed('POST', -59))).status, 200);
    assert.deepEqual(await send(signed('POST', 61)), { status: 401, body: UNAUTHORIZED });
    assert.deepEqual(await send(signed('POST', -61)), { status: 401, body: UNAUTHORIZED });
  });

  it('rejects malformed headers with the same body: missing, uncompressed key, no 0x, non-digits', async () => {
    const r = signed('GET');
    const uncompressed = `0x${Buffer.from(p256.Point.fromHex(r.pubkey.slice(2)).toBytes(false)).toString('hex')}`;
    const variants: Req[] = [
      { ...r, pubkey: '' },
      { ...r, pubkey: r.pubkey.slice(2) },
      { ...r, pubkey: uncompressed },
      { ...r, pubkey: `${r.pubkey}00` },
      { ...r, timestamp: `${r.timestamp}.0` },
      { ...r, timestamp: `+${r.timestamp}` },
      { ...r, signature: r.signature.slice(2) },
      { ...r, signature: '0xzz' },
    ];
    for (const v of variants) assert.deepEqual(await send(v), { status: 401, body: UNAUTHORIZED }, JSON.stringify(v));
    for (const drop of ['x-pubkey', 'x-timestamp', 'x-signature']) {
      const headers: Record<string, string> = {
        'x-pubkey': r.pubkey,
        'x-timestamp': r.timestamp,
        'x-signature': r.signature,
      };
      delete headers[drop];
      const res = await app.inject({ method: 'GET', url: r.target, headers });
      assert.equal(res.statusCode, 401, drop);
      assert.deepEqual(res.json(), UNAUTHORIZED);
    }
  });

  it('answers 401, not 400, to an unauthenticated request with malformed JSON', async () => {
    const res = await app.inject({
      method: 'POST',
      url: '/v1/echo/x',
      headers: { 'content-type': 'application/json' },
      payload: '{not json',
    });
    assert.equal(res.statusCode, 401);
    const r = signed();
    const broken = { ...r, body: '{"a":' };
    const msg = requestSigningInput(broken.timestamp, 'POST', broken.target, Buffer.from(broken.body));
    const ok = await send({ ...broken, signature: signRequest(acme.privateKey, msg) });
    assert.equal(ok.status, 400, 'a signed malformed body is a 400');
  });

  it('answers 413 and 415 before authentication: the body is refused before it is read or verified', async () => {
    // Headers that cannot be a credential end at 401 before the body is even read.
    const bare = await app.inject({
      method: 'POST',
      url: '/v1/echo/x',
      headers: { 'content-type': 'text/plain' },
      payload: 'x'.repeat(300 * 1024),
    });
    assert.deepEqual(bare.json(), UNAUTHORIZED);
    // A known key and a current timestamp pass the checks made before the body; the signature is never checked.
    const now = String(Math.floor(Date.now() / 1000));
    const shaped = { 'x-pubkey': acme.pubkey, 'x-timestamp': now, 'x-signature': `0x${'30'.repeat(40)}` };
    const big = await app.inject({
      method: 'POST',
      url: '/v1/echo/x',
      headers: { 'content-type': 'application/json', ...shaped },
      payload: JSON.stringify({ pad: 'x'.repeat(300 * 1024) }),
    });
    assert.deepEqual([big.statusCode, big.json<{ error: string }>().error], [413, 'payload_too_large']);
    const text = await app.inject({
      method: 'POST',
      url: '/v1/echo/x',
      headers: { 'content-type': 'text/plain', ...shaped },
      payload: 'hello',
    });
    assert.deepEqual([text.statusCode, text.json<{ error: string }>().error], [415, 'unsupported_media_type']);
    // Signed over an empty body with a text body attached: refused, never authenticated with an unsigned body.
    const timestamp = String(Math.floor(Date.now() / 1000));
    const target = `/v1/echo/abc123?n=${++counter}`;
    const unsignedBody = await app.inject({
      method: 'POST',
      url: target,
      headers: {
        'x-pubkey': acme.pubkey,
        'x-timestamp': timestamp,
        'x-signature': signRequest(acme.privateKey, requestSigningInput(timestamp, 'POST', target)),
        'content-type': 'text/plain',
      },
      payload: 'not covered by the signature',
    });
    assert.equal(unsignedBody.statusCode, 415);
  });

  it('stops accepting a revoked key at once in this process', async () => {
    const temp = await registerIntegrator(app, baseUrl, 'temp');
    assert.equal((await temp.client.credential()).integratorId, temp.integratorId);
    const del = await app.inject({
      method: 'DELETE',
      url: `/internal/v1/integrators/${temp.integratorId}/keys/${temp.keyId}`,
      headers: adminHeaders,
    });
    assert.equal(del.statusCode, 204);
    await assert.rejects(temp.client.credential(), { name: 'HeraldApiError', status: 401 });
  });

  it('leaves health open and guards integrator routes over real HTTP', async () => {
    assert.equal((await fetch(`${baseUrl}/v1/health`)).status, 200);
    const res = await fetch(`${baseUrl}/v1/credentials/current`);
    assert.equal(res.status, 401);
    assert.deepEqual(await res.json(), UNAUTHORIZED);
  });
});

function range(from: number, to: number): number[] {
  return Array.from({ length: to - from }, (_, i) => from + i);
}
function isJson(s: string): boolean {
  try {
    JSON.parse(s);
    return true;
  } catch {
    return false;
  }
}
