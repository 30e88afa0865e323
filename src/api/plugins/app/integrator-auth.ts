import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { createAuthenticator, TIMESTAMP_TOLERANCE_SEC } from '../../../auth/authenticator.js';
import { createKeyCache, type KeyCache } from '../../../auth/key-cache.js';
import { createReplayCache } from '../../../auth/replay-cache.js';
import { unauthorized } from '../../errors.js';
import { prependPreValidation } from '../../hooks/prepend-hook.js';
import { authFailureReason } from '../../../telemetry/auth-reason.js';

declare module 'fastify' {
  interface FastifyInstance {
    authKeys: KeyCache;
  }
}

/** OpenAPI security requirement of every integrator route: the three headers together. */
export const integratorSecurity = [{ pubkey: [], timestamp: [], signature: [] }];

/** Integrator routes: everything under /v1/ except health. */
export const needsIntegratorAuth = (url: string): boolean => url.startsWith('/v1/') && !url.startsWith('/v1/health');

const header = (request: FastifyRequest, name: string): string | undefined => {
  const value = request.headers[name];
  return typeof value === 'string' ? value : undefined; // a repeated header is not a credential
};

/**
 * Authenticates every integrator route (spec §5) before validation. Every failure answers the same 401 body;
 * the cause goes to the log only.
 */
export const integratorAuthPlugin = fp(
  async (app: FastifyInstance) => {
    const keys = createKeyCache(app.store.integrators);
    // The window is ±60 s, so a message can be replayed within 120 s of its first use.
    const replay = createReplayCache({ windowMs: 2 * TIMESTAMP_TOLERANCE_SEC * 1000 + 1000 });
    const authenticate = createAuthenticator({ keys, replay });
    app.decorate('authKeys', keys);

    app.addHook('onRoute', (route) => {
      if (!needsIntegratorAuth(route.url)) return;
      prependPreValidation(route, async (request) => {
        const result = await authenticate({
          pubkey: header(request, 'x-pubkey'),
          timestamp: header(request, 'x-timestamp'),
          signature: header(request, 'x-signature'),
          method: request.method,
          target: request.raw.url ?? request.url,
          body: request.rawBody,
        });
        if (!result.ok) {
          request.log.info({ cause: result.cause }, 'unauthorized');
          app.metrics.authFailed(authFailureReason(result.cause));
          throw unauthorized();
        }
        request.integratorId = result.integratorId;
        request.keyId = result.keyId;
      });
    });
  },
  { name: 'integrator-auth', dependencies: ['store', 'raw-body', 'telemetry'] },
);
