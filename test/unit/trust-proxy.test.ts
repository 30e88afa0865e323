// HERALD_TRUST_PROXY (issue 33 item 1): parsed into Fastify's trustProxy, and the address failures count under.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import Fastify from 'fastify';
import { ConfigError, loadConfig } from '../../src/config.js';
import { fastifyTrustProxy } from '../../src/config-trust-proxy.js';
import { failureAddressKey } from '../../src/auth/failure-limiter.js';

const trustProxy = (value?: string) =>
  loadConfig(value === undefined ? {} : { HERALD_TRUST_PROXY: value }).HERALD_TRUST_PROXY;

/** request.ip as a Fastify app with this setting sees it, for a peer and an X-Forwarded-For chain. */
async function clientIp(value: string, remoteAddress: string, forwardedFor: string): Promise<string> {
  const app = Fastify({ trustProxy: fastifyTrustProxy(trustProxy(value)) });
  app.get('/', async (request) => request.ip);
  const res = await app.inject({ url: '/', remoteAddress, headers: { 'x-forwarded-for': forwardedFor } });
  await app.close();
  return res.body;
}

describe('HERALD_TRUST_PROXY', () => {
  it('is false by default, a hop count, or a list of addresses and CIDRs', () => {
    assert.equal(trustProxy(), false);
    assert.equal(trustProxy(''), false);
    assert.equal(trustProxy('false'), false);
    assert.equal(trustProxy('2'), 2);
    assert.deepEqual(trustProxy('127.0.0.1/32, 10.0.0.0/8,fd00::/8, 192.0.2.1, loopback'), [
      '127.0.0.1/32',
      '10.0.0.0/8',
      'fd00::/8',
      '192.0.2.1',
      'loopback',
    ]);
  });

  it('refuses anything else, naming the variable and the bad part', () => {
    for (const [bad, why] of [
      ['true', /hop count/],
      ['0', /hop count/],
      ['101', /hop count/],
      ['10.0.0.0/33', /"10\.0\.0\.0\/33"/],
      ['10.0.0.0/8,,', /""/],
      ['proxy.example.com', /"proxy\.example\.com"/],
    ] as const)
      assert.throws(
        () => loadConfig({ HERALD_TRUST_PROXY: bad }),
        (err: unknown) => err instanceof ConfigError && /HERALD_TRUST_PROXY/.test(err.message) && why.test(err.message),
        bad,
      );
  });

  it('gives Fastify the client address: from a trusted peer, or that many hops back', async () => {
    assert.equal(await clientIp('false', '127.0.0.1', '198.51.100.1'), '127.0.0.1');
    assert.equal(await clientIp('127.0.0.1/32', '127.0.0.1', '198.51.100.1'), '198.51.100.1');
    assert.equal(await clientIp('127.0.0.1/32', '192.0.2.9', '198.51.100.1'), '192.0.2.9', 'untrusted peer');
    // A client's own X-Forwarded-For entry is not believed: only the proxy's appended one is.
    assert.equal(await clientIp('10.0.0.0/8', '10.0.0.2', '6.6.6.6, 198.51.100.1'), '198.51.100.1');
    assert.equal(await clientIp('1', '10.0.0.2', '6.6.6.6, 198.51.100.1'), '198.51.100.1');
    assert.equal(await clientIp('2', '10.0.0.2', '6.6.6.6, 198.51.100.1'), '6.6.6.6');
  });
});

describe('failureAddressKey', () => {
  it('keeps IPv4 (also IPv4-mapped) and groups IPv6 by /64', () => {
    assert.equal(failureAddressKey('198.51.100.7'), '198.51.100.7');
    assert.equal(failureAddressKey('::ffff:198.51.100.7'), '198.51.100.7');
    assert.equal(failureAddressKey('2001:db8:1:2::1'), '2001:db8:1:2::/64');
    assert.equal(failureAddressKey('2001:DB8:1:2:ffff:ffff:ffff:ffff'), '2001:db8:1:2::/64');
    assert.notEqual(failureAddressKey('2001:db8:1:3::1'), failureAddressKey('2001:db8:1:2::1'));
  });
});
