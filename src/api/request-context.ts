import type { FastifyRequest } from 'fastify';
import { unauthorized } from './errors.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the auth plugin on every authenticated /v1 route; every query is scoped by it. */
    integratorId?: string;
    /** Set with integratorId: the integrator key that signed the request. */
    keyId?: string;
    /** The raw request body bytes, kept for signature verification. */
    rawBody?: Buffer;
  }
}

/** The authenticated integrator of a request; a route that calls this without auth is a bug, answered 401. */
export function integratorOf(request: FastifyRequest): string {
  if (request.integratorId === undefined) throw unauthorized();
  return request.integratorId;
}

/** The authenticated integrator and the key that signed the request; both are set together by the auth plugin. */
export function credentialOf(request: FastifyRequest): { integratorId: string; keyId: string } {
  if (request.integratorId === undefined || request.keyId === undefined) throw unauthorized();
  return { integratorId: request.integratorId, keyId: request.keyId };
}
