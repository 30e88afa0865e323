// Issue 33 item 1: behind a TLS proxy every client shares the proxy's address; junk from one client must lock out
// neither that client's good requests nor anyone else's. The failed-authentication limiter counts per client address
// (X-Forwarded-For from a trusted proxy, IPv6 by /64) and only refuses credentials that do not verify.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { Agent } from 'node:http';
import type { FastifyInstance } from 'fastify';
import { compressedHexOf } from '../../src/crypto/p256.js';
import { buildTestApp, closeTestApp } from '../helpers/app.js';
import { sampleEvent } from '../helpers/events.js';
import { requestFrom, startForwardingProxy, type ForwardingProxy } from '../helpers/forwarding-proxy.js';
import { ADMIN_TOKEN, listen, newKeyPair, registerIntegrator, type TestIntegrator } from '../helpers/integrators.js';
import { signedHeaders } from '../helpers/signed.js';

const TARGET = '/v1/credentials/current';

describe('no lockout through a proxy (HERALD_TRUST_PROXY=127.0.0.1/32)', () => {
  let app: FastifyInstance;
  let proxy: ForwardingProxy;
  let acme: TestIntegrator;
  // Two clients of the proxy, each from its own loopback address; the API itself only ever sees 127.0.0.1.
  const mallory = new Agent({ keepAlive: true, localAddress: '127.0.0.2' });
  const alice = new Agent({ keepAlive: true, localAddress: '127.0.0.3' });

  before(async () => {
    ({ app } = await buildTestApp({
      HERALD_TRUST_PROXY: '127.0.0.1/32',
      HERALD_AUTH_FAILURE_LIMIT: '30',
      HERALD_AUTH_FAILURE_WINDOW_SEC: '600',
    }));
    const { port } = new URL(await listen(app));
    acme = await registerIntegrator(app, `http://127.0.0.1:${port}`);
    proxy = await startForwardingProxy({ host: '127.0.0.1', port: Number(port) });
  });
  after(async () => {
    mallory.destroy();
    alice.destroy();
    await proxy.close();
    await closeTestApp(app);
  });

  const get = (agent: Agent, headers: Record<string, string>, path = TARGET) =>
    requestFrom(agent, proxy.port, { method: 'GET', path, headers });
  // A valid request of its own (the same request twice in one second would be a replay).
  const valid = (tag: string) => {
    const path = `${TARGET}?client=${tag}`;
    return [signedHeaders(acme, 'GET', path), path] as const;
  };
  const stranger = newKeyPair().privateKey;
  // Junk of every kind the limiter must keep cheap: no credential, malformed headers, an unknown key, a known key
  // with a bad signature, a wrong admin token.
  const junk = (i: number): Record<string, string> => {
    const good = signedHeaders(acme, 'GET', TARGET);
    switch (i % 5) {
      case 0:
        return {};
      case 1:
        return { ...good, 'x-pubkey': '0xnot-a-key' };
      case 2:
        return signedHeaders({ privateKey: stranger, pubkey: `0x${compressedHexOf(stranger)}` }, 'GET', TARGET);
      case 3:
        return { ...good, 'x-signature': `0x${randomBytes(70).toString('hex')}` };
      default:
        return { authorization: 'Bearer not-the-admin-token-at-all' };
    }
  };

  it('1,000 junk requests from one client, then its valid requests → 200; another client → 200', async () => {
    const statuses = new Map<number, number>();
    for (let i = 0; i < 1000; i += 10)
      for (const res of await Promise.all(Array.from({ length: 10 }, (_, j) => get(mallory, junk(i + j)))))
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
    assert.equal((statuses.get(401) ?? 0) + (statuses.get(429) ?? 0), 1000, JSON.stringify([...statuses]));
    assert.ok((statuses.get(429) ?? 0) >= 900, `the limit applied to the junk: ${JSON.stringify([...statuses])}`);

    // The same client, limited: a bad credential is refused with 429 and Retry-After, a good one is served.
    const refused = await get(mallory, junk(3));
    assert.equal(refused.status, 429);
    assert.deepEqual(JSON.parse(refused.body), {
      error: 'too_many_auth_failures',
      status: 429,
      message: JSON.parse(refused.body).message,
    });
    const wait = Number(refused.headers['retry-after']);
    assert.ok(Number.isInteger(wait) && wait >= 1 && wait <= 600, String(refused.headers['retry-after']));
    const signed = valid('mallory');
    const mine = await get(mallory, ...signed);
    assert.equal(mine.status, 200, mine.body);
    // A repeated GET is answered again (replay protection covers requests that change state only).
    assert.equal((await get(mallory, ...signed)).status, 200);
    // A repeated POST is a replay, refused by replay protection (401), not by the limiter: its signature verified.
    const path = '/v1/webhooks/subscriptions';
    const post = JSON.stringify({ url: 'not a url' });
    const postHeaders = { ...signedHeaders(acme, 'POST', path, post), 'content-type': 'application/json' };
    const first = await requestFrom(mallory, proxy.port, { method: 'POST', path, headers: postHeaders, body: post });
    assert.equal(first.status, 400, first.body);
    const again = await requestFrom(mallory, proxy.port, { method: 'POST', path, headers: postHeaders, body: post });
    assert.equal(again.status, 401, again.body);
    assert.equal(JSON.parse(mine.body).integratorId, acme.integratorId);
    const body = JSON.stringify(sampleEvent(acme.integratorId));
    const published = await requestFrom(mallory, proxy.port, {
      method: 'POST',
      path: '/internal/v1/events',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body,
    });
    assert.equal(published.status, 201, published.body);

    // Another client behind the same proxy counts on its own: its junk is a 401, its good request a 200.
    assert.equal((await get(alice, junk(3))).status, 401);
    const theirs = await get(alice, ...valid('alice'));
    assert.equal(theirs.status, 200, theirs.body);
  });

  it('counts an IPv6 client by its /64', async () => {
    const from = (remoteAddress: string) => app.inject({ method: 'GET', url: TARGET, headers: junk(3), remoteAddress });
    for (let i = 1; i <= 30; i++) assert.equal((await from(`2001:db8:7:7::${i.toString(16)}`)).statusCode, 401);
    assert.equal((await from('2001:db8:7:7:ffff:1:2:3')).statusCode, 429, 'same /64');
    assert.equal((await from('2001:db8:7:8::1')).statusCode, 401, 'the next /64');
    const [headers, url] = valid('v6');
    const good = await app.inject({ method: 'GET', url, headers, remoteAddress: '2001:db8:7:7::1' });
    assert.equal(good.statusCode, 200);
  });
});
