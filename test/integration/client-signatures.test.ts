// The client's signatures verify with an independent implementation (@noble/curves), a request signed by the
// openssl CLI is accepted, and a key revoked through another API instance stops working within seconds.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { p256 } from '@noble/curves/nist.js';
import { HeraldClient } from '../../src/client/herald-client.js';
import { buildApp } from '../../src/process/app.js';
import { buildTestApp, closeTestApp } from '../helpers/app.js';
import { adminHeaders, listen, registerIntegrator } from '../helpers/integrators.js';

describe('request signatures across implementations', { timeout: 20_000 }, () => {
  let app: FastifyInstance;
  let baseUrl: string;
  before(async () => {
    ({ app } = await buildTestApp());
    baseUrl = await listen(app);
  });
  after(async () => closeTestApp(app));

  it('signs requests that @noble/curves verifies over the exact bytes sent', async () => {
    const acme = await registerIntegrator(app, baseUrl);
    const seen: Array<{ url: string; headers: Record<string, string>; body: string }> = [];
    const recording: typeof fetch = async (input, init) => {
      const url = new URL(String(input));
      seen.push({
        url: `${url.pathname}${url.search}`,
        headers: init?.headers as Record<string, string>,
        body: init?.body ? String(init.body) : '',
      });
      return await fetch(input, init);
    };
    const client = new HeraldClient({ baseUrl, privateKey: acme.privateKey, fetch: recording });
    const cred = await client.request('GET', '/v1/credentials/current', { query: { a: 'x y/ü', b: 2 } });
    assert.equal((cred as { integratorId: string }).integratorId, acme.integratorId);
    const sent = seen[0];
    assert.ok(sent);
    const message = Buffer.from(`${sent.headers['x-timestamp']}GET${sent.url}${sent.body}`, 'utf8');
    const sig = Buffer.from(sent.headers['x-signature']!.slice(2), 'hex');
    const pub = Buffer.from(acme.pubkey.slice(2), 'hex');
    assert.equal(p256.verify(sig, message, pub, { format: 'der', lowS: false }), true);
    const tampered = Buffer.from(message);
    tampered[tampered.length - 1]! ^= 1;
    assert.equal(p256.verify(sig, tampered, pub, { format: 'der', lowS: false }), false);
  });

  it('accepts a request signed with `openssl dgst -sha256 -sign`', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'herald-openssl-'));
    try {
      const keyPem = join(dir, 'key.pem');
      execFileSync('openssl', ['ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', keyPem]);
      const spki = execFileSync(
        'openssl',
        ['ec', '-in', keyPem, '-pubout', '-conv_form', 'compressed', '-outform', 'DER'],
        {
          stdio: ['ignore', 'pipe', 'ignore'],
        },
      );
      const pubkey = `0x${spki.subarray(-33).toString('hex')}`;
      const created = await app.inject({
        method: 'POST',
        url: '/internal/v1/integrators',
        headers: adminHeaders,
        payload: { name: 'openssl' },
      });
      const integratorId = created.json<{ id: string }>().id;
      const added = await app.inject({
        method: 'POST',
        url: `/internal/v1/integrators/${integratorId}/keys`,
        headers: adminHeaders,
        payload: { publicKey: pubkey },
      });
      assert.equal(added.statusCode, 201);

      const timestamp = String(Math.floor(Date.now() / 1000));
      const target = '/v1/credentials/current?via=openssl';
      writeFileSync(join(dir, 'msg'), `${timestamp}GET${target}`);
      const der = execFileSync('openssl', ['dgst', '-sha256', '-sign', keyPem, join(dir, 'msg')]);
      const res = await fetch(`${baseUrl}${target}`, {
        headers: { 'x-pubkey': pubkey, 'x-timestamp': timestamp, 'x-signature': `0x${der.toString('hex')}` },
      });
      assert.equal(res.status, 200, await res.clone().text());
      assert.equal(((await res.json()) as { integratorId: string }).integratorId, integratorId);
      assert.ok(readFileSync(keyPem, 'utf8').includes('PRIVATE KEY'));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a key revoked through one API instance stops working on another within seconds', async () => {
    const acme = await registerIntegrator(app, baseUrl, 'two-instances');
    // A second instance over the same database (same config), with its own key cache.
    const second = await buildApp({ config: app.config, logger: false });
    try {
      const secondUrl = await listen(second);
      const client = new HeraldClient({ baseUrl: secondUrl, privateKey: acme.privateKey });
      assert.equal((await client.credential()).keyId, acme.keyId);
      const del = await app.inject({
        method: 'DELETE',
        url: `/internal/v1/integrators/${acme.integratorId}/keys/${acme.keyId}`,
        headers: adminHeaders,
      });
      assert.equal(del.statusCode, 204);
      const started = Date.now();
      let status = 200;
      while (Date.now() - started < 10_000) {
        status = await client.request('GET', '/v1/credentials/current', { query: { t: Date.now() } }).then(
          () => 200,
          (err: { status: number }) => err.status,
        );
        if (status === 401) break;
        await new Promise((r) => setTimeout(r, 200));
      }
      assert.equal(status, 401);
      assert.ok(Date.now() - started <= 6_000, `took ${Date.now() - started} ms`);
    } finally {
      await second.close();
    }
  });
});
