import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyPluginAsync } from 'fastify';
import { errorResponses } from '../errors.js';
import type { ScopeOptions } from './integrator-scope.js';

export const adminSecurity = [{ adminToken: [] }];

const digest = (s: string): Buffer => createHash('sha256').update(s).digest();

/**
 * The internal admin routes, guarded by construction like the integrator scope: `Authorization: Bearer <token>`,
 * compared in constant time, in this scope's own onRequest hook. The caller registers this scope only when
 * HERALD_ADMIN_TOKEN is set, so without a token the routes do not exist (404). They are hidden from the public
 * /openapi.json.
 */
export const adminScope: FastifyPluginAsync<ScopeOptions & { token: string }> = async (scope, { token, routes }) => {
  const expected = digest(token);
  scope.addHook('onRoute', (route) => {
    // Every route here can answer the failure limiter's 429 (a wrong token counts) besides the 401.
    const response = { ...errorResponses(401, 429), ...(route.schema?.response as object | undefined) };
    route.schema = { ...route.schema, security: adminSecurity, hide: true, response };
    // With HERALD_ADMIN_PORT, served on the admin listener only (src/api/plugins/app/admin-listener.ts).
    route.config = { ...route.config, adminRoute: true };
  });
  scope.addHook('onRequest', async (request, reply) => {
    const header = request.headers.authorization ?? '';
    const given = header.startsWith('Bearer ') && header.length > 7 ? digest(header.slice(7)) : undefined;
    // Hashing first makes both sides 32 bytes, so the comparison leaks neither content nor length.
    // The right token is never refused by the limiter; a wrong one counts (429 once over the limit).
    if (given === undefined || !timingSafeEqual(given, expected))
      return scope.authFailures.refuse(request, reply, 'admin token mismatch');
    return undefined;
  });
  for (const routePlugin of routes) await scope.register(routePlugin);
};
