// The callback-host resolver against a DNS server of the test's own (test/helpers/dns-server.ts): c-ares answers,
// their TTL cache, one query per name at a time, the bound on a lookup, and lookups bounded per tenant so that one
// integrator's stalled zone does not delay another's.
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import ipaddr from 'ipaddr.js';
import { createResolver, HostResolutionError, type ResolverOptions } from '../../src/net/resolver.js';
import { startDnsServer, type TestDnsServer } from '../helpers/dns-server.js';

const PUBLIC_V4 = '93.184.216.34';
const PUBLIC_V6 = '2606:2800:220:1:248:1893:25c8:1946';
const STALLED = 'slow.example.net';

const failsWith = (code: string) => (err: unknown) => {
  assert.ok(err instanceof HostResolutionError, String(err));
  assert.equal(err.code, code);
  return true;
};

describe('resolver (c-ares, against a local DNS server)', () => {
  let dns: TestDnsServer;
  let clock = 0;
  const make = (options: ResolverOptions = {}) =>
    createResolver({ servers: [dns.address], cache: { now: () => clock }, ...options });

  before(async () => {
    dns = await startDnsServer({
      records: {
        'a.example.org': [PUBLIC_V4],
        'dual.example.org': [PUBLIC_V4, PUBLIC_V6],
        'v6only.example.org': [PUBLIC_V6],
        'hooks.example.com': ['198.51.100.1'],
      },
      stalledZone: STALLED,
    });
  });
  after(async () => dns.close());

  it('asks for A and AAAA and returns both families; a name with one family only resolves to it', async () => {
    const resolver = make();
    assert.deepEqual(await resolver.resolve('Dual.Example.org.'), [PUBLIC_V4, PUBLIC_V6]);
    assert.deepEqual(await resolver.resolve('v6only.example.org'), [PUBLIC_V6]);
    assert.deepEqual(
      dns.questions.filter((q) => q.name === 'dual.example.org').map((q) => q.type),
      ['A', 'AAAA'],
    );
  });

  it('serves an answer from the cache within its TTL and asks again after it', async () => {
    dns.set('ttl.example.org', [PUBLIC_V4], 60);
    const resolver = make();
    clock = 1_000_000;
    assert.deepEqual(await resolver.resolve('ttl.example.org'), [PUBLIC_V4]);
    dns.set('ttl.example.org', ['93.184.216.35'], 60);
    clock += 59_000;
    assert.deepEqual(await resolver.resolve('ttl.example.org'), [PUBLIC_V4], 'within the TTL: cached');
    assert.equal(dns.count('ttl.example.org'), 2, 'one query per family');
    clock += 2_000;
    assert.deepEqual(await resolver.resolve('ttl.example.org'), ['93.184.216.35'], 'past the TTL: asked again');
    assert.equal(dns.count('ttl.example.org'), 4);
  });

  it('holds a TTL between the floor (5 s) and the ceiling (300 s)', async () => {
    dns.set('zero.example.org', [PUBLIC_V4], 0);
    dns.set('day.example.org', [PUBLIC_V4], 86_400);
    const resolver = make();
    clock = 2_000_000;
    await resolver.resolve('zero.example.org');
    await resolver.resolve('day.example.org');
    clock += 4_000;
    await resolver.resolve('zero.example.org');
    assert.equal(dns.count('zero.example.org'), 2, 'TTL 0 is kept for the floor');
    clock += 2_000;
    await resolver.resolve('zero.example.org');
    assert.equal(dns.count('zero.example.org'), 4, 'and no longer');
    clock += 290_000;
    await resolver.resolve('day.example.org');
    assert.equal(dns.count('day.example.org'), 2, 'within the ceiling');
    clock += 5_000;
    await resolver.resolve('day.example.org');
    assert.equal(dns.count('day.example.org'), 4, 'a day-long TTL is cut to the ceiling');
  });

  it('caches a name that does not exist briefly, and keeps no more names than its bound', async () => {
    const resolver = make({ cache: { now: () => clock, maxEntries: 2 } });
    clock = 3_000_000;
    await assert.rejects(resolver.resolve('nx.example.org'), failsWith('ENOTFOUND'));
    await assert.rejects(resolver.resolve('nx.example.org'), failsWith('ENOTFOUND'));
    assert.equal(dns.count('nx.example.org'), 2, 'the second answer came from the cache');
    clock += 6_000;
    await assert.rejects(resolver.resolve('nx.example.org'), failsWith('ENOTFOUND'));
    assert.equal(dns.count('nx.example.org'), 4, 'past the negative TTL: asked again');
    for (const name of ['a.example.org', 'dual.example.org', 'v6only.example.org']) await resolver.resolve(name);
    const before = dns.count('a.example.org');
    await resolver.resolve('a.example.org');
    assert.equal(dns.count('a.example.org'), before + 2, 'the least recently used name was dropped');
  });

  it('sends one query for concurrent lookups of one name, and both get the answer', async () => {
    dns.set('shared.example.org', [PUBLIC_V4]);
    const resolver = make();
    const answers = await Promise.all([
      resolver.resolve('shared.example.org', 'a'),
      resolver.resolve('SHARED.example.org.', 'b'),
      resolver.resolve('shared.example.org'),
    ]);
    assert.deepEqual(answers, [[PUBLIC_V4], [PUBLIC_V4], [PUBLIC_V4]]);
    assert.equal(dns.count('shared.example.org'), 2, 'one A and one AAAA question');
  });

  it('gives up on a zone that never answers with ETIMEOUT, within the bound', async () => {
    const resolver = make({ timeoutMs: 300 });
    const started = performance.now();
    await assert.rejects(resolver.resolve(`t.${STALLED}`), failsWith('ETIMEOUT'));
    const took = performance.now() - started;
    assert.ok(took >= 200 && took < 500, `${took.toFixed(0)} ms`);
  });

  it('waits for a slow zone that answers within the bound, one query for the lookups that arrive meanwhile', async () => {
    const slow = await startDnsServer({
      records: { [`late.${STALLED}`]: [PUBLIC_V4] },
      stalledZone: STALLED,
      stallMs: 150,
    });
    try {
      const resolver = createResolver({ servers: [slow.address], timeoutMs: 1_000 });
      const started = performance.now();
      const first = resolver.resolve(`late.${STALLED}`, 'integrator-a');
      await new Promise((resolve) => setTimeout(resolve, 50));
      const answers = await Promise.all([first, resolver.resolve(`late.${STALLED}`, 'integrator-b')]);
      assert.deepEqual(answers, [[PUBLIC_V4], [PUBLIC_V4]]);
      assert.ok(performance.now() - started >= 140);
      assert.equal(slow.count(`late.${STALLED}`), 2, 'one A and one AAAA question');
    } finally {
      await slow.close();
    }
  });

  it("keeps one tenant's stalled lookups from delaying another tenant's", async () => {
    const resolver = make({ timeoutMs: 1_500 });
    const started = performance.now();
    const stalled = Array.from({ length: 50 }, (_, i) => resolver.resolve(`a${i}.${STALLED}`, 'integrator-a'));
    const settled = Promise.allSettled(stalled);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const asked = dns.questions.filter((q) => /^a\d+\./.test(q.name)).length;
    assert.equal(asked, 16, 'tenant A has 8 lookups (A and AAAA each) in flight, the rest wait');
    const b = performance.now();
    assert.deepEqual(await resolver.resolve('a.example.org', 'integrator-b'), [PUBLIC_V4]);
    const tookB = performance.now() - b;
    assert.ok(tookB < 100, `B's lookup took ${tookB.toFixed(0)} ms while 50 of A's were pending`);
    const outcomes = await settled;
    const took = performance.now() - started;
    assert.ok(took < 1_500 + 300, `A's lookups all ended within the bound: ${took.toFixed(0)} ms`);
    for (const outcome of outcomes) {
      assert.equal(outcome.status, 'rejected');
      failsWith('ETIMEOUT')(outcome.reason);
    }
  });

  it('refuses at once (EBUSY) a lookup past the tenant’s queue, and the shared lane is a tenant too', async () => {
    const resolver = make({ timeoutMs: 400, tenants: { maxInFlight: 2, maxQueued: 3 } });
    const waiting = Array.from({ length: 5 }, (_, i) => resolver.resolve(`q${i}.${STALLED}`, 'integrator-a'));
    const started = performance.now();
    await assert.rejects(resolver.resolve(`q5.${STALLED}`, 'integrator-a'), failsWith('EBUSY'));
    assert.ok(performance.now() - started < 50);
    const shared = Array.from({ length: 5 }, (_, i) => resolver.resolve(`s${i}.${STALLED}`));
    await assert.rejects(resolver.resolve(`s5.${STALLED}`), failsWith('EBUSY'));
    const outcomes = await Promise.allSettled([...waiting, ...shared]);
    for (const outcome of outcomes) failsWith('ETIMEOUT')(outcome.status === 'rejected' ? outcome.reason : null);
  });

  it('consults the static map first (the only pinned names), without asking DNS', async () => {
    const resolver = make({ staticMap: { 'hooks.example.com': [PUBLIC_V4] } });
    assert.deepEqual(await resolver.resolve('HOOKS.example.com.', 'integrator-a'), [PUBLIC_V4]);
    assert.equal(dns.count('hooks.example.com'), 0);
    assert.equal(resolver.isPinned('hooks.example.com.'), true);
    assert.equal(resolver.isPinned('a.example.org'), false);
  });

  it('answers from /etc/hosts before DNS, as getaddrinfo did: localhost resolves to loopback', async () => {
    const resolver = make();
    const addresses = await resolver.resolve('LocalHost.');
    assert.ok(addresses.length > 0);
    for (const address of addresses) assert.equal(ipaddr.parse(address).range(), 'loopback', address);
    assert.equal(dns.count('localhost'), 0);
    assert.equal(resolver.isPinned('localhost'), false, 'a hosts-file name is not pinned');
  });

  it('reads the hosts file it is given once, at creation; a name that cannot exist still does not resolve', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'herald-hosts-')), 'hosts');
    writeFileSync(
      path,
      `# comment\n${PUBLIC_V4}  Custom.example.org alias.example.org # trailing\n${PUBLIC_V6} custom.example.org\n`,
    );
    const resolver = make({ hostsFile: path });
    writeFileSync(path, '');
    assert.deepEqual(await resolver.resolve('custom.example.org'), [PUBLIC_V4, PUBLIC_V6]);
    assert.deepEqual(await resolver.resolve('alias.example.org'), [PUBLIC_V4]);
    assert.equal(dns.count('custom.example.org'), 0);
    await assert.rejects(resolver.resolve('no-such-host.invalid'), failsWith('ENOTFOUND'));
  });
});
