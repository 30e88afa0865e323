import type { FastifyPluginAsync } from 'fastify';
import { errorResponses } from '../errors.js';
import { idempotencyHeaders } from '../schemas/idempotency.js';

/** OpenAPI security requirement of every integrator route: the three headers together. */
export const integratorSecurity = [{ pubkey: [], timestamp: [], signature: [] }];

export interface ScopeOptions {
  /** The route plugins this scope guards; they are registered inside it, so its hooks cover them whatever their URL. */
  readonly routes: readonly FastifyPluginAsync[];
}

/**
 * The integrator routes (spec §5), guarded by construction: an encapsulated plugin (not fastify-plugin-wrapped)
 * whose own hooks authenticate every route registered in it, and which stamps their OpenAPI `security`. No URL test:
 * whatever spelling the router matches to one of these routes, the route's own hooks run.
 */
export const integratorScope: FastifyPluginAsync<ScopeOptions> = async (scope, { routes }) => {
  scope.addHook('onRoute', (route) => {
    // Every route here can answer the request budget's 429 (and its own, e.g. a quota's, keeps its place).
    // A portal session is refused a write it may not make (403: read-only, or not from the portal's page).
    const response = { ...errorResponses(403, 429), ...(route.schema?.response as object | undefined) };
    route.schema = { ...route.schema, security: integratorSecurity, response };
    // Over budget, its signed requests are refused before Fastify sees them (src/api/front-gate.ts).
    scope.requestBudget.guard(route.method, route.url);
    // Every POST takes an Idempotency-Key (src/api/plugins/app/idempotency.ts): after validation, around the handler.
    if (route.method !== 'POST') return;
    route.schema = {
      ...route.schema,
      headers: idempotencyHeaders,
      response: { ...errorResponses(409, 422), ...response },
    };
    route.preHandler = [scope.idempotency.begin, ...[route.preHandler ?? []].flat()];
    route.onSend = [...[route.onSend ?? []].flat(), scope.idempotency.finish];
  });
  // Two credentials: the signature headers, or (without them) a portal session's cookie (docs/portal.md), each
  // checked by its own guard; the routes behind them are the same.
  const { integratorAuth: signed, portalAuth: portal } = scope;
  // Before the body is read: a blocked address, or headers that cannot be a credential, end here; then an integrator
  // over its request budget (429 rate_limited), from its key alone: no body read, no verification, no digest.
  scope.addHook('onRequest', async (request, reply) =>
    portal.carries(request) ? await portal.precheck(request, reply) : await signed.precheck(request, reply),
  );
  scope.addHook('onRequest', scope.requestBudget.check);
  // After the body is read (the signature covers its bytes) and before validation; spends the budget once verified.
  scope.addHook('preValidation', async (request, reply) =>
    request.portalSession ? await portal.authenticate(request, reply) : await signed.authenticate(request, reply),
  );
  for (const routePlugin of routes) await scope.register(routePlugin);
};
