import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { createFailureLimiter } from '../../../auth/failure-limiter.js';
import { tooMany } from '../../errors.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** Failed authentications per client address (integrator and admin alike): 429 once over the limit. */
    authFailures: {
      /** Throws 429 `too_many_auth_failures` with Retry-After when the caller's address is blocked. */
      refuseIfBlocked(request: FastifyRequest): void;
      record(request: FastifyRequest): void;
    };
  }
}

export const authFailuresPlugin = fp(
  async (app: FastifyInstance) => {
    const limiter = createFailureLimiter({
      limit: app.config.HERALD_AUTH_FAILURE_LIMIT,
      windowMs: app.config.HERALD_AUTH_FAILURE_WINDOW_SEC * 1000,
    });
    app.decorate('authFailures', {
      refuseIfBlocked(request: FastifyRequest) {
        const wait = limiter.retryAfterSec(request.ip);
        if (wait > 0)
          throw tooMany('too_many_auth_failures', `too many failed authentications; retry in ${wait} s`, wait);
      },
      record(request: FastifyRequest) {
        limiter.record(request.ip);
      },
    });
  },
  { name: 'auth-failures', dependencies: ['connections'] },
);
