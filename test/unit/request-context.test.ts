import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { FastifyRequest } from 'fastify';
import { credentialOf, integratorOf } from '../../src/api/request-context.js';
import { HttpError } from '../../src/api/errors.js';

const request = (fields: Partial<Pick<FastifyRequest, 'integratorId' | 'keyId'>>) => fields as FastifyRequest;
const unauthorized = (err: unknown) => err instanceof HttpError && err.status === 401;

describe('request context', () => {
  it('gives the credential the auth plugin set', () => {
    const r = request({ integratorId: 'i', keyId: 'k' });
    assert.deepEqual(credentialOf(r), { integratorId: 'i', keyId: 'k' });
    assert.equal(integratorOf(r), 'i');
  });

  it('refuses with 401 rather than invent an id when auth did not run', () => {
    assert.throws(() => credentialOf(request({})), unauthorized);
    assert.throws(() => credentialOf(request({ integratorId: 'i' })), unauthorized);
    assert.throws(() => credentialOf(request({ keyId: 'k' })), unauthorized);
    assert.throws(() => integratorOf(request({})), unauthorized);
  });
});
