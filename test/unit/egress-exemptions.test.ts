import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config.js';
import { createAddressPolicy } from '../../src/net/address-policy.js';
import { createCallbackUrlPolicy } from '../../src/net/callback-url.js';
import { checkEgressExemptions } from '../../src/net/egress-exemptions.js';
import { createResolver } from '../../src/net/resolver.js';

const EXEMPTIONS = {
  HERALD_DNS_STATIC: 'hooks.example.com=127.0.0.1',
  HERALD_ALLOW_CIDRS: '127.0.0.1/32',
  // What this very machine sets for every process: it counts like any other bundle.
  NODE_EXTRA_CA_CERTS: '/etc/ssl/certs/ca-certificates.crt',
};
/** A configuration from exactly `env` (not this process's environment, which may set NODE_EXTRA_CA_CERTS). */
const check = (env: Record<string, string>) => checkEgressExemptions(loadConfig(env));
const refusal = (err: unknown): string => (err instanceof ConfigError ? err.message : assert.fail(String(err)));

describe('the start-up check of development egress exemptions', () => {
  for (const [variable, value] of Object.entries(EXEMPTIONS))
    it(`refuses ${variable} alone with NODE_ENV=production, naming it and the fix`, () => {
      assert.throws(
        () => check({ NODE_ENV: 'production', [variable]: value }),
        (err) => {
          const [head, ...lines] = refusal(err).split('\n');
          assert.equal(head, 'Invalid configuration:');
          assert.equal(lines.length, 1, lines.join('\n'));
          assert.match(lines[0]!, new RegExp(`^  ${variable}: .*refused with NODE_ENV=production; unset it`));
          assert.match(lines[0]!, /or set HERALD_UNSAFE_EGRESS=1 to start with it anyway$/);
          return true;
        },
      );
    });

  it('names every exemption set, one line each', () => {
    assert.throws(
      () => check({ NODE_ENV: 'production', ...EXEMPTIONS, HERALD_UNSAFE_EGRESS: '0' }),
      (err) => {
        const lines = refusal(err).split('\n').slice(1);
        assert.deepEqual(
          lines.map((l) => l.trim().split(':')[0]),
          ['HERALD_DNS_STATIC', 'HERALD_ALLOW_CIDRS', 'NODE_EXTRA_CA_CERTS'],
        );
        return true;
      },
    );
  });

  it('with HERALD_UNSAFE_EGRESS=1 returns one warning line naming each exemption and its value', () => {
    const warning = check({ NODE_ENV: 'production', ...EXEMPTIONS, HERALD_UNSAFE_EGRESS: '1' }) ?? '';
    assert.doesNotMatch(warning, /\n/);
    assert.match(warning, /^delivery egress exemptions in force \(HERALD_UNSAFE_EGRESS=1\): /);
    for (const [variable, value] of Object.entries(EXEMPTIONS)) {
      assert.ok(warning.includes(variable), variable);
      assert.ok(warning.includes(value), value);
    }
    assert.match(warning, /names HERALD_DNS_STATIC pins resolve into 127\.0\.0\.1\/32/);
  });

  it('outside production never refuses, and still warns', () => {
    for (const NODE_ENV of ['development', 'test']) {
      const warning = check({ NODE_ENV, NODE_EXTRA_CA_CERTS: '/tmp/dev-ca.pem' });
      assert.equal(
        warning,
        'delivery egress exemptions in force: NODE_EXTRA_CA_CERTS ' +
          "makes receivers' certificates trusted when issued by a CA in /tmp/dev-ca.pem",
      );
    }
  });

  it('has nothing to say without an exemption, in production too', () => {
    assert.equal(check({ NODE_ENV: 'production' }), null);
    assert.equal(check({ NODE_ENV: 'production', HERALD_UNSAFE_EGRESS: '1', NODE_EXTRA_CA_CERTS: ' ' }), null);
  });

  it('reads HERALD_UNSAFE_EGRESS as 1 or 0 only', () => {
    assert.throws(() => loadConfig({ HERALD_UNSAFE_EGRESS: 'yes' }), /HERALD_UNSAFE_EGRESS: must be '1'/);
  });
});

describe('an allowed range (HERALD_ALLOW_CIDRS)', () => {
  it('exempts an address only for a pinned name', () => {
    const policy = createAddressPolicy(['fd00::/8']);
    assert.deepEqual(policy.check('fd00::1', { pinned: true }), { ok: true });
    const unpinned = policy.check('fd00::1');
    assert.ok(!unpinned.ok);
    assert.match(
      unpinned.reason,
      /unique-local address \(HERALD_ALLOW_CIDRS exempts only the names HERALD_DNS_STATIC pins\)/,
    );
  });

  it('exempts the names the static map pins; another name resolving into it is refused', async () => {
    const dnsIntoRange = (name: string): Promise<string[]> =>
      name === 'internal.example.org'
        ? Promise.resolve(['127.0.0.1'])
        : Promise.reject(Object.assign(new Error('nx'), { code: 'ENOTFOUND' }));
    const policy = createCallbackUrlPolicy({
      resolver: createResolver({ staticMap: { 'loop.example.com': ['127.0.0.1'] }, dns: dnsIntoRange }),
      addressPolicy: createAddressPolicy(['127.0.0.0/8']),
    });
    assert.equal((await policy.check('https://LOOP.example.com./hook')).ok, true);
    for (const name of ['internal.example.org', 'internal.example.org.', 'INTERNAL.example.org']) {
      const verdict = await policy.checkHost(name);
      assert.ok(!verdict.ok, name);
      assert.equal(verdict.rule, 'non_public_address');
      assert.match(verdict.detail ?? '', /^127\.0\.0\.1: .*loopback.*exempts only the names HERALD_DNS_STATIC pins/);
      assert.doesNotMatch(verdict.message, /127\.0\.0\.1/);
    }
    const url = await policy.check('https://internal.example.org/hook');
    assert.equal(url.ok ? 'ok' : url.rule, 'non_public_address');
  });
});
