import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { FastifyInstance } from 'fastify';
import { buildTestApp, closeTestApp } from '../helpers/app.js';
import { adminHeaders, newKeyPair } from '../helpers/integrators.js';
import { compressedHexOf } from '../../src/crypto/p256.js';
import { createPublicKey } from 'node:crypto';

describe('internal admin API: integrators and keys', () => {
  let app: FastifyInstance;
  before(async () => {
    ({ app } = await buildTestApp());
  });
  after(async () => closeTestApp(app));

  const admin = (method: 'GET' | 'POST' | 'DELETE', url: string, payload?: Record<string, unknown>) =>
    app.inject({ method, url, headers: adminHeaders, ...(payload === undefined ? {} : { payload }) });

  it('requires the bearer token', async () => {
    for (const authorization of [
      undefined,
      'Bearer wrong-token-0123456789',
      'test-admin-token-0123456789',
      'Bearer ',
    ]) {
      const res = await app.inject({
        method: 'POST',
        url: '/internal/v1/integrators',
        headers: authorization ? { authorization } : {},
        payload: { name: 'x' },
      });
      assert.equal(res.statusCode, 401, String(authorization));
      assert.deepEqual(res.json(), { error: 'unauthorized', status: 401 });
    }
  });

  it('registers an integrator and keys in either SEC1 form, stored compressed', async () => {
    const created = await admin('POST', '/internal/v1/integrators', { name: 'Acme' });
    assert.equal(created.statusCode, 201);
    const integrator = created.json<{ id: string; name: string; createdAt: string }>();
    assert.equal(integrator.name, 'Acme');

    const a = newKeyPair();
    const uncompressed = createPublicKey(a.privateKey).export({ format: 'der', type: 'spki' }).subarray(-65);
    const keyA = await admin('POST', `/internal/v1/integrators/${integrator.id}/keys`, {
      publicKey: uncompressed.toString('hex').toUpperCase(),
    });
    assert.equal(keyA.statusCode, 201, keyA.body);
    assert.equal(keyA.json<{ publicKey: string }>().publicKey, `0x${compressedHexOf(a.privateKey)}`);

    const b = newKeyPair();
    const keyB = await admin('POST', `/internal/v1/integrators/${integrator.id}/keys`, {
      publicKey: `0x${compressedHexOf(b.privateKey)}`,
    });
    assert.equal(keyB.statusCode, 201);

    const got = await admin('GET', `/internal/v1/integrators/${integrator.id}`);
    assert.equal(got.statusCode, 200);
    const body = got.json<{ keys: Array<{ id: string; revokedAt: string | null }> }>();
    assert.deepEqual(
      body.keys.map((k) => k.id).sort(),
      [keyA.json<{ id: string }>().id, keyB.json<{ id: string }>().id].sort(),
    );

    // The same key again, here or for another integrator → 409, in either spelling.
    const other = (await admin('POST', '/internal/v1/integrators', { name: 'Other' })).json<{ id: string }>();
    const dup = await admin('POST', `/internal/v1/integrators/${other.id}/keys`, {
      publicKey: compressedHexOf(a.privateKey),
    });
    assert.equal(dup.statusCode, 409);
    assert.equal(dup.json<{ error: string }>().error, 'conflict');

    const revoke = await admin(
      'DELETE',
      `/internal/v1/integrators/${integrator.id}/keys/${keyB.json<{ id: string }>().id}`,
    );
    assert.equal(revoke.statusCode, 204);
    const again = await admin(
      'DELETE',
      `/internal/v1/integrators/${integrator.id}/keys/${keyB.json<{ id: string }>().id}`,
    );
    assert.equal(again.statusCode, 404);
    const after = (await admin('GET', `/internal/v1/integrators/${integrator.id}`)).json<{
      keys: Array<{ id: string; revokedAt: string | null }>;
    }>();
    assert.ok(after.keys.find((k) => k.id === keyB.json<{ id: string }>().id)?.revokedAt);
  });

  it('answers 400 for a bad key or body, 404 for an unknown integrator', async () => {
    const { id } = (await admin('POST', '/internal/v1/integrators', { name: 'Bad' })).json<{ id: string }>();
    for (const publicKey of ['0x1234', 'zz'.repeat(33), `02${'ff'.repeat(32)}`, `04${'00'.repeat(64)}`]) {
      const res = await admin('POST', `/internal/v1/integrators/${id}/keys`, { publicKey });
      assert.equal(res.statusCode, 400, publicKey);
      assert.equal(res.json<{ status: number }>().status, 400);
    }
    assert.equal((await admin('POST', '/internal/v1/integrators', { name: '' })).statusCode, 400);
    assert.equal((await admin('POST', '/internal/v1/integrators', { name: 'x', extra: 1 })).statusCode, 400);
    const unknown = '00000000-0000-4000-8000-000000000000';
    assert.equal((await admin('GET', `/internal/v1/integrators/${unknown}`)).statusCode, 404);
    const pk = `0x${compressedHexOf(newKeyPair().privateKey)}`;
    assert.equal((await admin('POST', `/internal/v1/integrators/${unknown}/keys`, { publicKey: pk })).statusCode, 404);
    assert.equal((await admin('GET', '/internal/v1/integrators/not-a-uuid')).statusCode, 400);
  });

  it('does not exist without a configured token', async () => {
    const { app: closed } = await buildTestApp({ HERALD_ADMIN_TOKEN: '' });
    try {
      const res = await closed.inject({
        method: 'POST',
        url: '/internal/v1/integrators',
        headers: adminHeaders,
        payload: { name: 'x' },
      });
      assert.equal(res.statusCode, 404);
    } finally {
      await closeTestApp(closed);
    }
  });
});
