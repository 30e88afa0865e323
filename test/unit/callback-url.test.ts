import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import ipaddr from 'ipaddr.js';
import { createAddressPolicy, InvalidCidrError } from '../../src/net/address-policy.js';
import { createCallbackUrlPolicy, type CallbackUrlRule } from '../../src/net/callback-url.js';
import { createResolver, HostResolutionError } from '../../src/net/resolver.js';

const PUBLIC_V4 = '93.184.216.34';
const PUBLIC_V6 = '2606:2800:220:1:248:1893:25c8:1946';

/** Hosts under example.com that resolve to a forbidden address, as `name=address[|address…]`. */
const FORBIDDEN = `
  rebind=10.0.0.5 private172=172.16.5.4 private192=192.168.1.1 meta=169.254.169.254 cgnat=100.64.1.1
  loop=127.0.0.1 loop6=::1 zero=0.0.0.0 this-net=0.1.2.3 bcast=255.255.255.255 mcast=224.0.0.1 mcast6=ff02::1
  reserved=240.0.0.1 ietf=192.0.0.8 doc1=192.0.2.1 doc2=198.51.100.7 doc3=203.0.113.9 doc6=2001:db8::1
  bench=198.18.0.1 ula=fd00::1 linklocal6=fe80::1 unspecified6=:: discard6=100::1 unassigned6=4000::1
  nat64=64:ff9b::a00:1 nat64-local=64:ff9b:1::a00:1 mapped=::ffff:10.0.0.1 compat=::a00:1 6to4=2002:a00:1::1
  teredo=2001:0:4136:e378:8000:63bf:3fff:fdd2 mixed=93.184.216.34|10.0.0.5
  mixed6=2606:2800:220:1:248:1893:25c8:1946|fe80::1 garbage=not-an-address mapped-loop=::ffff:127.0.0.1
  ula-fc=fc00::1 loop-net=127.255.255.254 linklocal4=169.254.0.1 mcast6-global=ff0e::1 mapped-cgnat=::ffff:100.64.0.1
  mapped-meta=::ffff:169.254.169.254 nat64-public=64:ff9b::5db8:d822 compat-loop=::127.0.0.1 mcast-local=239.1.2.3
`;
const forbidden = Object.fromEntries(
  FORBIDDEN.trim()
    .split(/\s+/)
    .map((entry) => entry.split('=') as [string, string])
    .map(([name, addresses]) => [`${name}.example.com`, addresses.split('|')]),
);

const staticMap: Record<string, string[]> = {
  'hooks.example.com': [PUBLIC_V4],
  'example.com': [PUBLIC_V4],
  'v6.example.com': [PUBLIC_V6],
  'dual.example.com': [PUBLIC_V4, PUBLIC_V6],
  'xn--bcher-kva.example.com': [PUBLIC_V4],
  'mapped-public.example.com': [`::ffff:${PUBLIC_V4}`],
  ...forbidden,
};

/** Unit tests never touch real DNS: anything not in the static map is NXDOMAIN. */
const nxdomain = (): Promise<string[]> => Promise.reject(Object.assign(new Error('nx'), { code: 'ENOTFOUND' }));
const resolver = createResolver({ staticMap, dns: nxdomain });
const strict = createCallbackUrlPolicy({ resolver, addressPolicy: createAddressPolicy([]) });
const allowLoopback = createCallbackUrlPolicy({ resolver, addressPolicy: createAddressPolicy(['127.0.0.1/32']) });

type Row = readonly [url: string, expected: CallbackUrlRule | 'ok', policy?: 'allow-127.0.0.1'];
const H = 'https://hooks.example.com';

const rows: readonly Row[] = [
  // accepted
  [`${H}/webhooks?x=1`, 'ok'],
  [`${H}:8443/a`, 'ok'],
  [`${H}:443/`, 'ok'],
  ['https://HOOKS.Example.COM/Path', 'ok'],
  [`https://hooks.example.com./trailing-dot`, 'ok'],
  ['https://example.com/', 'ok'],
  ['https://v6.example.com/', 'ok'],
  ['https://dual.example.com/', 'ok'],
  ['https://bücher.example.com/', 'ok'],
  ['https://xn--bcher-kva.example.com/', 'ok'],
  ['https://mapped-public.example.com/', 'ok'],
  [`${H}/a%23b`, 'ok'],
  [`${H}:65535/`, 'ok'],
  // length and shape
  [`${H}/${'a'.repeat(2048)}`, 'too_long'],
  ['hooks.example.com/webhooks', 'not_a_url'],
  ['', 'not_a_url'],
  ['https://', 'not_a_url'],
  [`${H}:99999/`, 'not_a_url'],
  [` ${H}/`, 'not_a_url'],
  [`${H}/a b`, 'not_a_url'],
  [`${H}/a\tb`, 'not_a_url'],
  ['https://hooks.example.123/', 'not_a_url'],
  // read differently by different parsers: control characters and what WHATWG strips, backslashes, hosts the
  // canonical form changes, userinfo-looking authorities
  [`${H}/a\rb`, 'not_a_url'],
  [`${H}/a\nb`, 'not_a_url'],
  [`https://hooks.exa\tmple.com/`, 'not_a_url'],
  [`https://hooks.example.com\n/`, 'not_a_url'],
  [`${H}/a\u0000b`, 'not_a_url'],
  [`${H}/a\u007fb`, 'not_a_url'],
  [`https://hoo\u00adks.example.com/`, 'not_a_url'],
  [`https://hooks\u200b.example.com/`, 'not_a_url'],
  ['https://hooks.example.com\\@127.0.0.1/hook', 'ambiguous_url'],
  ['https://hooks.example.com\\@rebind.example.com/hook', 'ambiguous_url'],
  ['https:\\\\hooks.example.com/hook', 'ambiguous_url'],
  [`${H}/a\\b`, 'ambiguous_url'],
  ['https:hooks.example.com/hook', 'ambiguous_url'],
  ['https:/hooks.example.com/hook', 'ambiguous_url'],
  ['https:///hooks.example.com/hook', 'ambiguous_url'],
  ['https://%68ooks.example.com/', 'ambiguous_url'],
  ['https://hooks%2eexample.com/', 'ambiguous_url'],
  ['https://hooks。example。com/', 'ambiguous_url'],
  ['https://ｈｏｏｋｓ.example.com/', 'ambiguous_url'],
  ['http://hooks.example.com/', 'https_required'],
  ['HTTP://hooks.example.com/', 'https_required'],
  ['ftp://hooks.example.com/', 'https_required'],
  ['wss://hooks.example.com/', 'https_required'],
  ['http://localhost/', 'https_required'],
  ['http://127.0.0.1/', 'https_required'],
  ['https://user@hooks.example.com/', 'credentials_not_allowed'],
  ['https://user:secret@hooks.example.com/', 'credentials_not_allowed'],
  ['https://:secret@hooks.example.com/', 'credentials_not_allowed'],
  ['https://hooks.example.com@10.0.0.5/', 'credentials_not_allowed'],
  [`${H}/#frag`, 'fragment_not_allowed'],
  [`${H}/#`, 'fragment_not_allowed'],
  [`${H}/?a=1#`, 'fragment_not_allowed'],
  [`${H}:0/`, 'invalid_port'],
  // every IPv4 spelling the URL parser turns into 127.0.0.1, and other literals
  ['https://127.0.0.1/', 'ip_literal_not_allowed'],
  ['https://127.0.0.1./', 'ip_literal_not_allowed'],
  ['https://2130706433/', 'ip_literal_not_allowed'],
  ['https://017700000001/', 'ip_literal_not_allowed'],
  ['https://0177.0.0.1/', 'ip_literal_not_allowed'],
  ['https://0x7f000001/', 'ip_literal_not_allowed'],
  ['https://0x7f.1/', 'ip_literal_not_allowed'],
  ['https://0x7f.0x0.0x0.0x1/', 'ip_literal_not_allowed'],
  ['https://0x7f.0.0.1/', 'ip_literal_not_allowed'],
  ['https://127.000.000.001/', 'ip_literal_not_allowed'],
  ['https://[0:0:0:0:0:0:0:1]/', 'ip_literal_not_allowed'],
  ['https://[::ffff:a9fe:a9fe]/', 'ip_literal_not_allowed'],
  ['https://[::127.0.0.1]/', 'ip_literal_not_allowed'],
  ['https://[64:ff9b::a00:1]/', 'ip_literal_not_allowed'],
  ['https://[fc00::1]/', 'ip_literal_not_allowed'],
  ['https://127.1/', 'ip_literal_not_allowed'],
  ['https://%31%32%37.0.0.1/', 'ip_literal_not_allowed'],
  ['https://１２７.０.０.１/', 'ip_literal_not_allowed'],
  ['https://0/', 'ip_literal_not_allowed'],
  ['https://10.0.0.5/', 'ip_literal_not_allowed'],
  ['https://169.254.169.254/latest/meta-data/', 'ip_literal_not_allowed'],
  [`https://${PUBLIC_V4}/`, 'ip_literal_not_allowed'],
  ['https://[::1]/', 'ip_literal_not_allowed'],
  ['https://[::]/', 'ip_literal_not_allowed'],
  ['https://[::ffff:127.0.0.1]/', 'ip_literal_not_allowed'],
  ['https://[::ffff:7f00:1]:8443/', 'ip_literal_not_allowed'],
  ['https://[fd00::1]/', 'ip_literal_not_allowed'],
  [`https://[${PUBLIC_V6}]/`, 'ip_literal_not_allowed'],
  // names that are local or special-use by definition
  ['https://localhost/', 'internal_hostname'],
  ['https://LOCALHOST/', 'internal_hostname'],
  ['https://localhost./', 'internal_hostname'],
  ['https://localhost:8443/', 'internal_hostname'],
  ['https://api.localhost/', 'internal_hostname'],
  ['https://intranet/', 'internal_hostname'],
  ['https://webhooks/', 'internal_hostname'],
  ['https://webhooks:8443/a', 'internal_hostname'],
  ['https://printer.local/', 'internal_hostname'],
  ['https://db.internal/', 'internal_hostname'],
  ['https://metadata.google.internal/', 'internal_hostname'],
  ['https://box.localdomain/', 'internal_hostname'],
  ['https://router.home.arpa/', 'internal_hostname'],
  ['https://nas.lan/', 'internal_hostname'],
  ['https://hr.corp/', 'internal_hostname'],
  ['https://wiki.intranet/', 'internal_hostname'],
  ['https://vault.private/', 'internal_hostname'],
  ['https://hooks.test/', 'internal_hostname'],
  ['https://hooks.invalid/', 'internal_hostname'],
  ['https://hooks.example/', 'internal_hostname'],
  ['https://HOOKS.LOCAL./', 'internal_hostname'],
  ['https://foo.home.arpa./', 'internal_hostname'],
  ['https://printer.LAN/', 'internal_hostname'],
  ['https://-bad.example.com/', 'invalid_hostname'],
  ['https://bad-.example.com/', 'invalid_hostname'],
  ['https://under_score.example.com/', 'invalid_hostname'],
  ['https://a..example.com/', 'invalid_hostname'],
  [`${H}../`, 'invalid_hostname'],
  [`https://${'a'.repeat(64)}.example.com/`, 'invalid_hostname'],
  // resolution (static map) and address classes
  ['https://missing.example.com/', 'does_not_resolve'],
  ...Object.keys(forbidden).map((host): Row => [`https://${host}/hook`, 'non_public_address']),
  // the allowlist exempts addresses, never names or literals
  ['https://loop.example.com/', 'ok', 'allow-127.0.0.1'],
  ['https://mapped-loop.example.com/', 'ok', 'allow-127.0.0.1'],
  ['https://loop6.example.com/', 'non_public_address', 'allow-127.0.0.1'],
  ['https://rebind.example.com/', 'non_public_address', 'allow-127.0.0.1'],
  ['https://localhost/', 'internal_hostname', 'allow-127.0.0.1'],
  ['https://127.0.0.1/', 'ip_literal_not_allowed', 'allow-127.0.0.1'],
  ['https://2130706433/', 'ip_literal_not_allowed', 'allow-127.0.0.1'],
];

describe('callback URL policy (spec §6.3)', () => {
  it('has a broad table', () => assert.ok(rows.length >= 60, `${rows.length} rows`));

  for (const [url, expected, variant] of rows) {
    it(`${expected.padEnd(23)} ${url.length > 90 ? `${url.slice(0, 60)}…(${url.length})` : url}${variant ? ` [${variant}]` : ''}`, async () => {
      const verdict = await (variant ? allowLoopback : strict).check(url);
      assert.equal(verdict.ok ? 'ok' : verdict.rule, expected, verdict.ok ? 'accepted' : verdict.message);
      if (!verdict.ok) assert.ok(verdict.message.length > 10);
    });
  }

  it('reports the hostname and every address of an accepted URL', async () => {
    const verdict = await strict.check('https://Dual.Example.com./x');
    assert.ok(verdict.ok);
    assert.equal(verdict.hostname, 'dual.example.com');
    assert.deepEqual(verdict.addresses, [PUBLIC_V4, PUBLIC_V6]);
  });

  it('names the forbidden address in the detail for logs, never in the message an API caller sees', async () => {
    const verdict = await strict.check('https://mixed.example.com/');
    assert.ok(!verdict.ok);
    assert.doesNotMatch(verdict.message, /10\.0\.0\.5/);
    assert.match(verdict.detail ?? '', /10\.0\.0\.5/);
    assert.match(verdict.detail ?? '', /private/);
  });

  it('keeps only the canonical WHATWG form of an accepted URL', async () => {
    for (const [raw, href] of [
      ['HTTPS://Hooks.Example.COM:443/a/./b/../c?x=1', 'https://hooks.example.com/a/c?x=1'],
      ['https://bücher.example.com/p', 'https://xn--bcher-kva.example.com/p'],
      ['https://hooks.example.com./x y'.replace(' ', '%20'), 'https://hooks.example.com./x%20y'],
    ] as const) {
      const verdict = await strict.check(raw);
      assert.ok(verdict.ok, raw);
      assert.equal(verdict.url.href, href);
    }
  });

  it('checks syntax without touching the resolver', () => {
    const verdict = strict.checkSyntax('https://not-in-the-map.example.com/a?b=c');
    assert.ok(verdict.ok);
    assert.equal(verdict.url.pathname, '/a');
  });
});

describe('address policy', () => {
  it('refuses an invalid allowlist at creation', () => {
    for (const bad of ['10.0.0.0/33', 'nope', '10.1/16', '127.0.0.1', 'fd00::/129']) {
      assert.throws(() => createAddressPolicy([bad]), InvalidCidrError, bad);
    }
    assert.doesNotThrow(() => createAddressPolicy(['127.0.0.0/8', 'fd00::/8', ' 10.0.0.0/8 ']));
  });

  it('allows an IPv6 range from the allowlist (for a pinned name: test/unit/egress-exemptions.test.ts)', () => {
    const policy = createAddressPolicy(['fd00::/8']);
    assert.deepEqual(policy.check('fd00::1', { pinned: true }), { ok: true });
    assert.equal(policy.check('fe80::1', { pinned: true }).ok, false);
  });
});

describe('resolver', () => {
  it('consults the static map first, case- and trailing-dot-insensitively', async () => {
    assert.deepEqual(await resolver.resolve('HOOKS.example.com.'), [PUBLIC_V4]);
  });

  it('bounds a lookup that never answers', async () => {
    const hanging = createResolver({ dns: () => new Promise<string[]>(() => {}), timeoutMs: 50 });
    await assert.rejects(
      hanging.resolve('slow.example.com'),
      (e) => e instanceof HostResolutionError && e.code === 'ETIMEOUT',
    );
  });

  it('treats an empty answer as not resolving', async () => {
    const empty = createResolver({ dns: () => Promise.resolve([]) });
    await assert.rejects(
      empty.resolve('empty.example.com'),
      (e) => e instanceof HostResolutionError && e.code === 'ENODATA',
    );
  });
});

describe('with the system resolver (/etc/hosts)', () => {
  const system = createResolver();
  const policy = createCallbackUrlPolicy({ resolver: system, addressPolicy: createAddressPolicy([]) });

  it('really resolves localhost to loopback addresses, and the address policy refuses each', async () => {
    const addresses = await system.resolve('localhost');
    assert.ok(addresses.length > 0);
    const addressPolicy = createAddressPolicy([]);
    for (const address of addresses) {
      assert.equal(ipaddr.parse(address).range(), 'loopback', address);
      assert.equal(addressPolicy.check(address).ok, false, address);
    }
  });

  it('rejects a host that resolves to loopback as non_public_address, naming the address in the detail only', async () => {
    const verdict = await policy.checkHost('localhost');
    assert.ok(!verdict.ok);
    assert.equal(verdict.rule, 'non_public_address');
    assert.match(verdict.detail ?? '', /127\.0\.0\.1|::1/);
    assert.doesNotMatch(verdict.message, /127\.0\.0\.1|::1/);
  });

  for (const url of [
    'https://localhost/',
    'https://localhost./',
    'https://LocalHost.:443/x',
    'https://a.b.localhost/',
  ]) {
    it(`rejects ${url} by name before resolving`, async () => {
      const verdict = await policy.check(url);
      assert.equal(verdict.ok ? 'ok' : verdict.rule, 'internal_hostname');
    });
  }
});
