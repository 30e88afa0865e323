import type { FastifyPluginAsync } from 'fastify';

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
    route.schema = { ...route.schema, security: integratorSecurity };
  });
  // Before the body is read: a blocked address, or headers that cannot be a credential, end here.
  scope.addHook('onRequest', scope.integratorAuth.precheck);
  // After the body is read (the signature covers its bytes) and before validation.
  scope.addHook('preValidation', scope.integratorAuth.authenticate);
  for (const routePlugin of routes) await scope.register(routePlugin);
};
