import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { createFailureLimiter, failureAddressKey } from '../../../auth/failure-limiter.js';
import { createFailureLog } from '../../../auth/failure-log.js';
import { authFailureReason } from '../../../telemetry/auth-reason.js';
import { tooManyBodies, unauthorized } from '../../errors.js';
import { JSON_TYPE } from '../../send-json.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** Refused by an auth guard (401, or the limiter's 429): counted in the failure log, no request line of its own. */
    authRefused: boolean;
  }
  interface FastifyInstance {
    /**
     * Refused credentials (integrator and admin alike), limited per client address. The limiter is consulted only for
     * a credential that did not verify, so a good client is never refused because others share its address (a proxy,
     * a NAT).
     */
    authFailures: {
      /**
       * Answers a request whose credential did not verify: 401 in the error shape, or 429 `too_many_auth_failures`
       * with Retry-After once its address is over the limit. `counted` false (a replay of a verified message: a good
       * client retrying, never a guess) answers 401 without counting it against the address. Counted in the metrics
       * and the bounded failure log; the cause goes to the log only. Returns the reply, for an async hook to return.
       */
      refuse(request: FastifyRequest, reply: FastifyReply, cause: string, counted?: boolean): FastifyReply;
      /** Whether the request's address is over the limit (its next failure would be answered 429). */
      limited(request: FastifyRequest): boolean;
    };
  }
}

/** Built once: every refused credential gets the same bytes, without an Error, a stack or a serializer per request. */
const UNAUTHORIZED_BODY = Buffer.from(JSON.stringify(unauthorized().toBody()));

export const authFailuresPlugin = fp(
  async (app: FastifyInstance) => {
    const limiter = createFailureLimiter({
      limit: app.config.HERALD_AUTH_FAILURE_LIMIT,
      windowMs: app.config.HERALD_AUTH_FAILURE_WINDOW_SEC * 1000,
    });
    const failureLog = createFailureLog({ log: (fields, message) => app.log.info(fields, message) });
    app.addHook('onClose', async () => failureLog.flush());
    const limitedBody = tooManyBodies(
      'too_many_auth_failures',
      (wait) => `too many failed authentications; retry in ${wait} s`,
    );

    app.decorateRequest('authRefused', false);
    app.decorate('authFailures', {
      refuse(request: FastifyRequest, reply: FastifyReply, cause: string, counted = true) {
        request.authRefused = true;
        const reason = authFailureReason(cause);
        app.metrics.authFailed(reason);
        failureLog.record(reason, cause);
        if (counted) {
          // request.ip is the X-Forwarded-For client when HERALD_TRUST_PROXY trusts the peer, else the peer.
          const address = failureAddressKey(request.ip);
          const wait = limiter.retryAfterSec(address);
          if (wait > 0)
            return reply.code(429).header('retry-after', String(wait)).type(JSON_TYPE).send(limitedBody(wait));
          limiter.record(address);
        }
        return reply.code(401).type(JSON_TYPE).send(UNAUTHORIZED_BODY);
      },
      limited: (request: FastifyRequest) => limiter.retryAfterSec(failureAddressKey(request.ip)) > 0,
    });
  },
  { name: 'auth-failures', dependencies: ['connections', 'telemetry'] },
);
