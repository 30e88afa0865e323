import assert from 'node:assert/strict';
import { Resolver } from 'node:dns';
import { describe, it } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config.js';

describe('HERALD_DNS_SERVERS', () => {
  it('is empty (the system resolvers) when unset or blank', () => {
    for (const env of [{}, { HERALD_DNS_SERVERS: '' }, { HERALD_DNS_SERVERS: ' , ' }])
      assert.deepEqual(loadConfig(env).HERALD_DNS_SERVERS, [], JSON.stringify(env));
  });

  it('takes ip, ip:port, ipv6 and [ipv6]:port, in order, and c-ares accepts each', () => {
    const servers = loadConfig({
      HERALD_DNS_SERVERS: ' 10.0.0.53, 127.0.0.1:5353,2001:4860:4860::8888 ,[2001:4860:4860::8844]:1053,[::1]',
    }).HERALD_DNS_SERVERS;
    assert.deepEqual(servers, [
      '10.0.0.53',
      '127.0.0.1:5353',
      '2001:4860:4860::8888',
      '[2001:4860:4860::8844]:1053',
      '[::1]',
    ]);
    const resolver = new Resolver();
    assert.doesNotThrow(() => resolver.setServers(servers));
    assert.equal(resolver.getServers().length, servers.length);
  });

  it('stops the process with a message naming the variable and the bad entries', () => {
    for (const bad of ['dns.example.com', '10.0.0.1:0', '10.0.0.1:70000', '10.0.0.1:', '::1:53x', '[::1', '1.2.3']) {
      assert.throws(
        () => loadConfig({ HERALD_DNS_SERVERS: `10.0.0.53,${bad}` }),
        (err: unknown) =>
          err instanceof ConfigError &&
          /HERALD_DNS_SERVERS/.test(err.message) &&
          err.message.includes(`"${bad}"`) &&
          !err.message.includes('"10.0.0.53"'),
        bad,
      );
    }
  });
});
