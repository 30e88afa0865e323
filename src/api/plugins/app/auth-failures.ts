import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { createFailureLimiter, failureAddressKey } from '../../../auth/failure-limiter.js';
import { tooMany } from '../../errors.js';

declare module 'fastify' {
  interface FastifyInstance {
    /**
     * Failed authentications per client address (integrator and admin alike). Consulted only for a credential that
     * did not verify, so a good client is never refused because others share its address (a proxy, a NAT).
     */
    authFailures: {
      /**
       * Counts one failure of the caller's address, or throws 429 `too_many_auth_failures` with Retry-After when the
       * address is already over the limit; the caller answers 401 otherwise.
       */
      count(request: FastifyRequest): void;
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
      count(request: FastifyRequest) {
        // request.ip is the X-Forwarded-For client when HERALD_TRUST_PROXY trusts the peer, else the peer.
        const address = failureAddressKey(request.ip);
        const wait = limiter.retryAfterSec(address);
        if (wait > 0)
          throw tooMany('too_many_auth_failures', `too many failed authentications; retry in ${wait} s`, wait);
        limiter.record(address);
      },
    });
  },
  { name: 'auth-failures', dependencies: ['connections'] },
);
