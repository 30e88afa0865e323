import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import fp from 'fastify-plugin';
import { retryAfterSeconds, tooMany, tooManyBodies } from '../../errors.js';
import type { FrontGate } from '../../front-gate.js';
import { costOf } from '../../route-costs.js';
import { JSON_TYPE } from '../../send-json.js';
import { createTokenBuckets } from '../../../util/token-buckets.js';
import { createEarlyBudget } from './early-budget.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** Requests per integrator (a token bucket each, in this process): installed by the integrator scope. */
    requestBudget: {
      /**
       * onRequest, after the credential's precheck found its key: 429 `rate_limited` (Retry-After) when the key's
       * integrator cannot pay the route's cost (src/api/route-costs.ts), before the body is read, the signature
       * verified or a replay digest written. Spends nothing: a request whose signature does not verify never
       * spends, so nobody can spend another's budget. A callback hook: it allocates no promise per request.
       */
      check(request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction): void;
      /**
       * Spends the route's cost for a verified request, before its replay digest is written (src/auth/authenticator.ts
       * `admit`): 0 when spent, else the seconds to wait (requests that passed the check together and found the
       * bucket spent by the others).
       */
      spend(request: FastifyRequest, integratorId: string): number;
      /** The 429 of a request that must wait `seconds`. */
      refusal(seconds: number): Error;
      /**
       * onRoute of the integrator scope: the route is also refused before Fastify sees a request for it, by the front
       * gate (src/api/front-gate.ts), when the request's key names an integrator over its budget.
       */
      guard(method: string | readonly string[], url: string): void;
    };
  }
}

/**
 * HERALD_RATE_LIMIT_PER_SECOND with bursts of HERALD_RATE_LIMIT_BURST, per integrator and API instance, each route
 * at its cost. Checked from the key alone before any work, spent only by a verified request.
 */
export const requestBudgetPlugin = fp<{ gate?: FrontGate }>(
  async (app: FastifyInstance, { gate }) => {
    const rate = app.config.HERALD_RATE_LIMIT_PER_SECOND;
    const burst = app.config.HERALD_RATE_LIMIT_BURST;
    const buckets = createTokenBuckets({ ratePerSec: rate, burst });
    const limit = `more than ${rate} requests per second (bursts of ${burst}) from this integrator`;
    const refusal = (wait: number) => tooMany('rate_limited', `${limit}; retry in ${Math.ceil(wait)} s`, wait);
    // A refusal from the key sends a body made once and writes no request line (as an authentication refusal; the
    // request metrics count it).
    const bodyFor = tooManyBodies('rate_limited', (seconds) => `${limit}; retry in ${seconds} s`);
    const early = createEarlyBudget({ keys: app.authKeys, buckets, bodyFor, metrics: app.metrics });
    gate?.install(early.refuse);
    app.decorate('requestBudget', {
      check(request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) {
        // A request without a known key ended in the hook before this one.
        const integratorId = request.identified?.key.integratorId;
        const wait = integratorId === undefined ? 0 : buckets.peek(integratorId, costOf(request));
        if (wait <= 0) return done();
        const seconds = retryAfterSeconds(wait);
        request.authRefused = true;
        void reply.code(429).header('retry-after', String(seconds)).type(JSON_TYPE).send(bodyFor(seconds));
      },
      spend(request: FastifyRequest, integratorId: string) {
        return buckets.take(integratorId, costOf(request));
      },
      refusal,
      guard: early.guard,
    });
  },
  { name: 'request-budget', dependencies: ['connections', 'telemetry', 'integrator-auth'] },
);
