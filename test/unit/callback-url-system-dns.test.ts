// The callback-URL policy with the REAL system resolver (/etc/hosts, then DNS through c-ares): names that resolve to
// loopback are refused for their addresses, even inside an allowed range, and a name that cannot exist does not
// resolve.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import ipaddr from 'ipaddr.js';
import { loadConfig } from '../../src/config.js';
import { createAddressPolicy } from '../../src/net/address-policy.js';
import { createCallbackUrlPolicy } from '../../src/net/callback-url.js';
import { callbackUrlPolicyFromConfig } from '../../src/net/policy-from-config.js';
import { createResolver } from '../../src/net/resolver.js';

/** Every name /etc/hosts maps to a loopback address (`localhost` is there on any usual system). */
function loopbackNamesInHosts(): string[] {
  if (!existsSync('/etc/hosts')) return [];
  const names = new Set<string>();
  for (const line of readFileSync('/etc/hosts', 'utf8').split('\n')) {
    const [address, ...aliases] = line.replace(/#.*/, '').trim().split(/\s+/);
    if (!address || !ipaddr.isValid(address) || ipaddr.process(address).range() !== 'loopback') continue;
    for (const name of aliases) names.add(name.toLowerCase());
  }
  return [...names];
}

describe('callback URL policy with the system resolver', () => {
  const resolver = createResolver();
  const policy = createCallbackUrlPolicy({ resolver, addressPolicy: createAddressPolicy([]) });

  for (const name of ['localhost', 'localhost.', 'LOCALHOST', 'LocalHost.']) {
    it(`resolves ${name} for real and refuses it as non_public_address`, async () => {
      const verdict = await policy.checkHost(name);
      assert.ok(!verdict.ok);
      assert.equal(verdict.rule, 'non_public_address');
      assert.doesNotMatch(verdict.message, /127\.\d+\.\d+\.\d+|::1/);
      assert.match(verdict.detail ?? '', /127\.\d+\.\d+\.\d+|::1/);
      assert.match(verdict.detail ?? '', /loopback/);
    });
  }

  it('refuses every name /etc/hosts maps to loopback, by address and by URL', async () => {
    const names = loopbackNamesInHosts();
    assert.ok(names.length === 0 || names.includes('localhost'), names.join(' '));
    for (const name of names) {
      const host = await policy.checkHost(name);
      assert.equal(host.ok ? 'ok' : host.rule, 'non_public_address', name);
      const url = await policy.check(`https://${name}/hook`);
      assert.ok(!url.ok, name);
      // Single-label and localhost names fall to the name rules first; any other name to its address.
      assert.ok(['internal_hostname', 'non_public_address'].includes(url.rule), `${name}: ${url.rule}`);
    }
  });

  it('never exempts by the allowlisted range a name the system resolves into it, only a name pinned there', async () => {
    const addresses = await resolver.resolve('localhost');
    const cidrs = addresses.map((a) => (ipaddr.parse(a).kind() === 'ipv4' ? `${a}/32` : `${a}/128`)).join(',');
    // The process's own policy, as HERALD_ALLOW_CIDRS and HERALD_DNS_STATIC make it.
    const allowed = callbackUrlPolicyFromConfig(
      loadConfig({ HERALD_ALLOW_CIDRS: cidrs, HERALD_DNS_STATIC: `pinned.example.com=${addresses.join('|')}` }),
    );
    const unpinned = await allowed.checkHost('localhost');
    assert.equal(unpinned.ok ? 'ok' : unpinned.rule, 'non_public_address');
    assert.match(unpinned.ok ? '' : (unpinned.detail ?? ''), /exempts only the names HERALD_DNS_STATIC pins/);
    assert.deepEqual(await allowed.checkHost('pinned.example.com'), { ok: true, addresses });
    // The name rule holds whatever the ranges: `localhost` in a URL is refused for its name.
    const url = await allowed.check('https://localhost/');
    assert.equal(url.ok ? 'ok' : url.rule, 'internal_hostname');
  });

  for (const name of ['no-such-host.invalid', 'herald-test.invalid.']) {
    it(`answers does_not_resolve for ${name} (RFC 6761: never resolves)`, async () => {
      const verdict = await policy.checkHost(name);
      assert.ok(!verdict.ok);
      assert.equal(verdict.rule, 'does_not_resolve');
      assert.match(verdict.message, /does not resolve$/);
      assert.match(verdict.detail ?? '', /^(ENOTFOUND|EAI_AGAIN|ENODATA|ETIMEOUT|[A-Z_]+)$/);
    });
  }
});
