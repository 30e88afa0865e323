import type { FastifyInstance, FastifyRequest } from 'fastify';
import { unauthorized } from './errors.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the auth plugin on every authenticated /v1 route; every query is scoped by it. */
    integratorId?: string;
    /** Set with integratorId: the integrator key that signed the request. */
    keyId?: string;
    /** The raw request body bytes, kept for signature verification. */
    rawBody?: Buffer;
    /** The ids of the delivery a request is about, for its log line (src/api/log-controller.ts). */
    deliveryLogIds?: DeliveryLogIds;
  }
}

/**
 * Declares the fields above on every request from its creation, so that every request has one shape (V8 hidden
 * class) whichever of them a route sets: Fastify's own code then reads requests at one shape, not several.
 */
export function decorateRequestContext(app: FastifyInstance): void {
  for (const name of ['integratorId', 'keyId', 'rawBody', 'deliveryLogIds'] as const)
    app.decorateRequest(name, undefined);
}

type DeliveryLogIds = Readonly<Record<'deliveryId' | 'eventId' | 'subscriptionId' | 'integratorId', string>> & {
  readonly attemptNumber: number;
};

/** The request is about this delivery: its log line carries the five ids (attemptNumber: the last made, or given). */
export function logDelivery(
  request: FastifyRequest,
  delivery: { _id: string; eventId: string; subscriptionId: string; integratorId: string; attemptCount: number },
  attemptNumber = delivery.attemptCount,
): void {
  const { _id: deliveryId, eventId, subscriptionId, integratorId } = delivery;
  request.deliveryLogIds = { deliveryId, eventId, subscriptionId, integratorId, attemptNumber };
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
