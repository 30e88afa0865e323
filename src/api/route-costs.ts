import type { FastifyRequest } from 'fastify';

/**
 * What a request costs from its integrator's request budget (HERALD_RATE_LIMIT_PER_SECOND tokens a second, bursts of
 * HERALD_RATE_LIMIT_BURST), by route: a listing reads a page of documents, a summary counts a subscription's
 * deliveries by status; a read or a write of one thing costs 1. docs/configuration.md lists them.
 */
export const ROUTE_COSTS: Readonly<Record<string, number>> = {
  'GET /v1/query/events': 2,
  'GET /v1/webhooks/deliveries': 2,
  'GET /v1/webhooks/deliveries/:delivery_id/attempts': 2,
  'GET /v1/webhooks/subscriptions': 2,
  'GET /v1/webhooks/subscriptions/:subscription_id/keys': 2,
  'GET /v1/webhooks/subscriptions/:subscription_id/deliveries/summary': 5,
  'GET /v1/webhooks/subscriptions/:subscription_id/stats': 2,
};

/** The cost of a route by its method and URL pattern (HEAD as its GET). */
export function costOfRoute(method: string, url: string): number {
  return ROUTE_COSTS[`${method === 'HEAD' ? 'GET' : method} ${url}`] ?? 1;
}

/** The cost of the route this request matched. */
export function costOf(request: FastifyRequest): number {
  return costOfRoute(request.method, request.routeOptions.url ?? '');
}
