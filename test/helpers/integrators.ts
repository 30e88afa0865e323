import { createPublicKey, type KeyObject } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { HeraldClient } from '../../src/client/herald-client.js';
import { compressedHexOf, generateP256Key } from '../../src/crypto/p256.js';

export const ADMIN_TOKEN = 'test-admin-token-0123456789';
export const adminHeaders = { authorization: `Bearer ${ADMIN_TOKEN}` };

export interface TestIntegrator {
  readonly integratorId: string;
  readonly keyId: string;
  readonly privateKey: KeyObject;
  /** `0x` + compressed hex, as sent in X-Pubkey. */
  readonly pubkey: string;
  /** A signing client over real HTTP (needs `baseUrl`). */
  readonly client: HeraldClient;
}

export const newKeyPair = (): { privateKey: KeyObject; publicKey: KeyObject } => {
  const privateKey = generateP256Key(); // not generateKeyPairSync: src/crypto/p256.ts says why
  return { privateKey, publicKey: createPublicKey(privateKey) };
};

/** Registers an integrator and one key through the admin API; the client talks to `baseUrl` (real HTTP). */
export async function registerIntegrator(
  app: FastifyInstance,
  baseUrl: string,
  name = 'acme',
): Promise<TestIntegrator> {
  const created = await app.inject({
    method: 'POST',
    url: '/internal/v1/integrators',
    headers: adminHeaders,
    payload: { name },
  });
  if (created.statusCode !== 201) throw new Error(`create integrator: ${created.statusCode} ${created.body}`);
  const integratorId = created.json<{ id: string }>().id;
  const { privateKey } = newKeyPair();
  const pubkey = `0x${compressedHexOf(privateKey)}`;
  const key = await app.inject({
    method: 'POST',
    url: `/internal/v1/integrators/${integratorId}/keys`,
    headers: adminHeaders,
    payload: { publicKey: pubkey },
  });
  if (key.statusCode !== 201) throw new Error(`add key: ${key.statusCode} ${key.body}`);
  return {
    integratorId,
    keyId: key.json<{ id: string }>().id,
    privateKey,
    pubkey,
    // No retries: tests assert each answer as the API gave it (idempotency-keys.test.ts tests the client's retries).
    client: new HeraldClient({ baseUrl, privateKey, maxRetries: 0 }),
  };
}

/** Listens on a free loopback port and returns the base URL. */
export async function listen(app: FastifyInstance): Promise<string> {
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  if (!address || typeof address === 'string') throw new Error('no address');
  return `http://127.0.0.1:${address.port}`;
}
