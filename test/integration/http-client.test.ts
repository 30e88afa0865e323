import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { createAddressPolicy } from '../../src/net/address-policy.js';
import { createCallbackUrlPolicy } from '../../src/net/callback-url.js';
import { createWebhookHttpClient, type WebhookHttpClientOptions } from '../../src/net/http-client.js';
import { createResolver, type DnsLookup } from '../../src/net/resolver.js';
import { startHttpsReceiver, type HttpsReceiver } from '../helpers/receiver.js';

const staticMap = {
  'receiver.example.com': ['127.0.0.1'],
  'multi.example.com': ['127.0.0.3', '127.0.0.1'],
  'pooled.example.com': ['127.0.0.1'],
  'other.org': ['127.0.0.1'],
  'rebind.example.com': ['10.0.0.5'],
  'sneaky.example.com': ['127.0.0.2'],
};
const nxdomain: DnsLookup = () => Promise.reject(Object.assign(new Error('nx'), { code: 'ENOTFOUND' }));

function policyWith(dns: DnsLookup = nxdomain, allow = ['127.0.0.1/32']): WebhookHttpClientOptions['policy'] {
  const resolver = createResolver({ staticMap, dns });
  return createCallbackUrlPolicy({ resolver, addressPolicy: createAddressPolicy(allow) });
}

function clientWith(options: Partial<WebhookHttpClientOptions> = {}): ReturnType<typeof createWebhookHttpClient> {
  return createWebhookHttpClient({ policy: policyWith(), userAgent: 'Herald-test/1', ...options });
}

async function unusedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

const json = '{"hello":"world"}';
const headers = { 'content-type': 'application/json', 'x-service-webhook-delivery-id': 'd-1' };

describe('webhook HTTP client against a real HTTPS receiver', () => {
  let receiver: HttpsReceiver;
  let client: ReturnType<typeof createWebhookHttpClient>;
  let url: string;
  before(async () => {
    receiver = await startHttpsReceiver();
    client = clientWith({ connectTimeoutMs: 2000, responseTimeoutMs: 2000 });
    url = `https://receiver.example.com:${receiver.port}/hooks?x=1`;
  });
  after(async () => {
    await client.close();
    await receiver.close();
  });

  it('204 → succeeded, pinned to 127.0.0.1, the exact bytes received', async () => {
    receiver.respond(() => ({ status: 204 }));
    const result = await client.post(url, headers, json);
    assert.equal(result.outcome, 'succeeded', result.error ?? '');
    assert.equal(result.statusCode, 204);
    assert.equal(result.address, '127.0.0.1');
    assert.equal(result.error, null);
    assert.ok(result.latencyMs >= 0);
    const seen = receiver.requests.at(-1);
    assert.equal(seen?.method, 'POST');
    assert.equal(seen?.url, '/hooks?x=1');
    assert.equal(seen?.body.toString(), json);
    assert.equal(seen?.headers['user-agent'], 'Herald-test/1');
    assert.equal(seen?.headers['x-service-webhook-delivery-id'], 'd-1');
    assert.equal(seen?.headers.host, `receiver.example.com:${receiver.port}`);
  });

  it('500 → http_error with the status and a response summary', async () => {
    receiver.respond(() => ({ status: 500, headers: { 'content-type': 'text/plain', 'x-secret': 's' }, body: 'boom' }));
    const result = await client.post(url, headers, json);
    assert.equal(result.outcome, 'http_error');
    assert.equal(result.statusCode, 500);
    assert.deepEqual(result.responseSummary, {
      status: 500,
      headers: { 'content-type': 'text/plain' },
      body: 'boom',
      truncated: false,
    });
  });

  it('302 → http_error; the redirect is not followed', async () => {
    const before = receiver.requests.length;
    receiver.respond(() => ({ status: 302, headers: { location: `https://receiver.example.com:${receiver.port}/b` } }));
    const result = await client.post(url, headers, json);
    assert.equal(result.outcome, 'http_error');
    assert.equal(result.statusCode, 302);
    assert.equal(result.responseSummary?.headers.location, `https://receiver.example.com:${receiver.port}/b`);
    assert.equal(receiver.requests.length, before + 1);
  });

  it('keeps only maxResponseBytes of a 5 MB body and stops reading', async () => {
    receiver.respond(() => ({ status: 200, body: Buffer.alloc(5 * 1024 * 1024, 'x') }));
    const started = Date.now();
    const result = await client.post(url, headers, json);
    assert.ok(Date.now() - started < 3000, `took ${Date.now() - started} ms`);
    assert.equal(result.outcome, 'succeeded');
    assert.equal(result.responseSummary?.body, 'x'.repeat(1024));
    assert.equal(result.responseSummary?.truncated, true);
    assert.equal(result.error, null);
  });

  it('a certificate for another name → connection_error (TLS verification stays on)', async () => {
    const before = receiver.requests.length;
    const result = await client.post(`https://other.org:${receiver.port}/`, headers, json);
    assert.equal(result.outcome, 'connection_error');
    assert.match(result.error ?? '', /ERR_TLS_CERT_ALTNAME_INVALID|altnames/);
    assert.equal(result.statusCode, null);
    assert.equal(receiver.requests.length, before);
  });

  it('a URL the syntax rules refuse → blocked without any network', async () => {
    const result = await client.post(`http://receiver.example.com:${receiver.port}/`, headers, json);
    assert.equal(result.outcome, 'blocked');
    assert.match(result.error ?? '', /^https_required: /);
  });

  it('a host that no longer resolves → connection_error', async () => {
    const result = await client.post('https://gone.example.com/', headers, json);
    assert.equal(result.outcome, 'connection_error');
    assert.match(result.error ?? '', /does not resolve/);
  });
});

describe('webhook HTTP client: failures and connection handling', () => {
  it('a slow receiver → timeout, quickly', async () => {
    const receiver = await startHttpsReceiver(() => ({ status: 200, delayMs: 5000 }));
    const client = clientWith({ connectTimeoutMs: 1000, responseTimeoutMs: 300 });
    try {
      const started = Date.now();
      const result = await client.post(`https://receiver.example.com:${receiver.port}/`, headers, json);
      assert.equal(result.outcome, 'timeout', result.error ?? '');
      assert.ok(Date.now() - started < 2000, `took ${Date.now() - started} ms`);
      assert.equal(result.statusCode, null);
    } finally {
      await client.close();
      await receiver.close();
    }
  });

  it('nothing listening → connection_error naming the refused address', async () => {
    const client = clientWith({ connectTimeoutMs: 1000 });
    try {
      const result = await client.post(`https://receiver.example.com:${await unusedPort()}/`, headers, json);
      assert.equal(result.outcome, 'connection_error');
      assert.match(result.error ?? '', /ECONNREFUSED/);
      assert.equal(result.address, '127.0.0.1');
    } finally {
      await client.close();
    }
  });

  it('moves on to the next checked address when one refuses the connection', async () => {
    const receiver = await startHttpsReceiver();
    const client = clientWith({ policy: policyWith(nxdomain, ['127.0.0.0/8']) });
    try {
      const result = await client.post(`https://multi.example.com:${receiver.port}/`, headers, json);
      assert.equal(result.outcome, 'succeeded', result.error ?? '');
      assert.equal(result.address, '127.0.0.1');
    } finally {
      await client.close();
      await receiver.close();
    }
  });

  it("two posts to one host share one TLS connection, checked once, each resolved under its integrator's bound", async () => {
    const receiver = await startHttpsReceiver();
    const lookups: (string | undefined)[] = [];
    const resolver = createResolver({ staticMap, dns: nxdomain });
    const counting = {
      ...resolver,
      resolve: (name: string, tenant?: string) => {
        lookups.push(tenant);
        return resolver.resolve(name, tenant);
      },
    };
    const policy = createCallbackUrlPolicy({
      resolver: counting,
      addressPolicy: createAddressPolicy(['127.0.0.1/32']),
    });
    const client = clientWith({ policy });
    try {
      for (let i = 0; i < 2; i += 1) {
        // undici hands a keep-alive socket back to its pool one event-loop turn after a response ends (it checks
        // the server did not close it); a post issued in that same turn would open a second connection.
        if (i > 0) await new Promise((resolve) => setImmediate(resolve));
        const url = `https://pooled.example.com:${receiver.port}/`;
        const result = await client.post(url, headers, json, { tenant: 'int-1' });
        assert.equal(result.outcome, 'succeeded', result.error ?? '');
        assert.equal(result.address, '127.0.0.1');
      }
      assert.equal(receiver.requests.length, 2);
      assert.equal(receiver.secureConnections, 1);
      assert.equal(receiver.connections, 1);
      // Each post resolves first under its integrator's bound; the one connection checks the (cached) answer again.
      assert.deepEqual(lookups, ['int-1', undefined, 'int-1']);
    } finally {
      await client.close();
      await receiver.close();
    }
  });
});

describe('webhook HTTP client: DNS rebinding', () => {
  it('a name now resolving to a private address → blocked, nothing connects', async () => {
    const client = clientWith();
    try {
      const result = await client.post('https://rebind.example.com/', headers, json);
      assert.equal(result.outcome, 'blocked');
      // The error is shown to the integrator on the attempt: it names the rule, never the internal address.
      assert.match(result.error ?? '', /resolves to a non-public address/);
      assert.doesNotMatch(result.error ?? '', /10\.0\.0\.5/);
      assert.equal(result.address, null);
      assert.equal(result.statusCode, null);
    } finally {
      await client.close();
    }
  });

  it('a name that passed the subscription check and then flips to loopback → blocked, the listener sees nothing', async () => {
    // A receiver really listens on the new (not allowlisted) address, so any connection would show up here.
    const target = await startHttpsReceiver(undefined, { host: '127.0.0.2' });
    let answer = ['93.184.216.34'];
    const flipping: DnsLookup = (name) => (name === 'flip.example.com' ? Promise.resolve(answer) : nxdomain(name));
    const policy = policyWith(flipping);
    const client = clientWith({ policy });
    try {
      const url = `https://flip.example.com:${target.port}/`;
      assert.equal((await policy.check(url)).ok, true);
      answer = ['127.0.0.2'];
      const result = await client.post(url, headers, json);
      assert.equal(result.outcome, 'blocked');
      assert.match(result.error ?? '', /flip\.example\.com resolves to a non-public address/);
      assert.doesNotMatch(result.error ?? '', /127\.0\.0\.2/);
      const sneaky = await client.post(`https://sneaky.example.com:${target.port}/`, headers, json);
      assert.equal(sneaky.outcome, 'blocked');
      await new Promise((resolve) => setTimeout(resolve, 100));
      assert.equal(target.connections, 0);
      assert.equal(target.requests.length, 0);
    } finally {
      await client.close();
      await target.close();
    }
  });

  it('a name DNS resolves into the allowed range is not exempt (only pinned names are) → blocked, nothing connects', async () => {
    const target = await startHttpsReceiver();
    const intoRange: DnsLookup = (name) =>
      name === 'internal.example.com' ? Promise.resolve(['127.0.0.1']) : nxdomain(name);
    const client = clientWith({ policy: policyWith(intoRange) });
    try {
      const pinned = await client.post(`https://receiver.example.com:${target.port}/`, headers, json);
      assert.equal(pinned.outcome, 'succeeded', pinned.error ?? '');
      const result = await client.post(`https://internal.example.com:${target.port}/`, headers, json);
      assert.equal(result.outcome, 'blocked');
      assert.match(result.error ?? '', /internal\.example\.com resolves to a non-public address/);
      assert.equal(result.address, null);
      assert.equal(target.connections, 1, 'the pinned name only');
      assert.equal(target.requests.length, 1);
    } finally {
      await client.close();
      await target.close();
    }
  });
});
