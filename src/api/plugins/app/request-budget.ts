import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import fp from 'fastify-plugin';
import { tooMany } from '../../errors.js';
import { createTokenBuckets } from '../../../util/token-buckets.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** Requests per integrator (a token bucket each, in this process): installed by the integrator scope. */
    requestBudget: {
      /**
       * preValidation, after authentication: 429 `rate_limited` (Retry-After) once the integrator's bucket is dry.
       * A callback hook: it does nothing asynchronous, so it allocates no promise per request.
       */
      take(request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction): void;
    };
  }
}

/**
 * HERALD_RATE_LIMIT_PER_SECOND with bursts of HERALD_RATE_LIMIT_BURST, per integrator and API instance. Keyed on
 * the authenticated integrator only: a key that did not verify never reaches it, so nobody can spend another's budget.
 */
export const requestBudgetPlugin = fp(
  async (app: FastifyInstance) => {
    const rate = app.config.HERALD_RATE_LIMIT_PER_SECOND;
    const burst = app.config.HERALD_RATE_LIMIT_BURST;
    const buckets = createTokenBuckets({ ratePerSec: rate, burst });
    app.decorate('requestBudget', {
      take(request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction) {
        // A request that did not authenticate ended in the hook before this one.
        const wait = request.integratorId === undefined ? 0 : buckets.take(request.integratorId);
        if (wait <= 0) return done();
        const limit = `more than ${rate} requests per second (bursts of ${burst}) from this integrator`;
        return done(tooMany('rate_limited', `${limit}; retry in ${Math.ceil(wait)} s`, wait));
      },
    });
  },
  { name: 'request-budget', dependencies: ['connections'] },
);
