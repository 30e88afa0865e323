import type { FastifyRequest } from 'fastify';
import { unauthorized } from './errors.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the auth plugin on every authenticated /v1 route; every query is scoped by it. */
    integratorId?: string;
    /** The raw request body bytes, kept for signature verification. */
    rawBody?: Buffer;
  }
}

/** The authenticated integrator of a request; a route that calls this without auth is a bug, answered 401. */
export function integratorOf(request: FastifyRequest): string {
  if (request.integratorId === undefined) throw unauthorized();
  return request.integratorId;
}
