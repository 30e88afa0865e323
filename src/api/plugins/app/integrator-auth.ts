import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { createAuthenticator, TIMESTAMP_TOLERANCE_SEC, type Identified } from '../../../auth/authenticator.js';
import { createKeyCache, type KeyCache } from '../../../auth/key-cache.js';
import { createReplayCache } from '../../../auth/replay-cache.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** What the integrator guard's precheck found, for authenticate to verify once the body is in. */
    identified: Identified | null;
  }
  interface FastifyInstance {
    authKeys: KeyCache;
    /** The integrator guard's two hooks, installed by the integrator scope (src/api/scopes/integrator-scope.ts). */
    integratorAuth: {
      /**
       * onRequest, before the body is read: the headers' shapes, the time window and the key (401, or 429 from a
       * blocked address), so an unknown key never costs a body read.
       */
      precheck(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | undefined>;
      /**
       * preValidation: the signature over the raw body, the request budget's spend (429 rate_limited), then replay
       * protection; sets request.integratorId and keyId.
       */
      authenticate(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | undefined>;
    };
  }
}

const header = (request: FastifyRequest, name: string): string | undefined => {
  const value = request.headers[name];
  return typeof value === 'string' ? value : undefined; // a repeated header is not a credential
};

/**
 * Builds the integrator authenticator (key cache, replay protection) once per app. It installs no hook itself:
 * the integrator scope does, for exactly the routes registered in it. Every failure answers the same 401 body
 * (app.authFailures.refuse); the cause goes to the log only.
 */
export const integratorAuthPlugin = fp(
  async (app: FastifyInstance) => {
    const keys = createKeyCache(app.store.integrators);
    keys.directory.start((err) => app.log.warn({ err }, 'authentication key directory: refresh failed'));
    app.addHook('onClose', async () => keys.directory.stop());
    // The window is ±60 s, so a message can be replayed within 120 s of its first use.
    const replay = createReplayCache({ windowMs: 2 * TIMESTAMP_TOLERANCE_SEC * 1000 + 1000 });
    const authenticator = createAuthenticator({ keys, replay, sharedReplay: app.store.expiring });
    app.decorate('authKeys', keys);
    app.decorateRequest('identified', null);
    const { refuse, limited } = app.authFailures;

    app.decorate('integratorAuth', {
      async precheck(request: FastifyRequest, reply: FastifyReply) {
        // From an address over the failure limit, a key the directory does not hold is refused without waiting for
        // its refresh: such junk stays as cheap as the limiter makes it (a key registered elsewhere in the last
        // seconds is then served once the background refresh has read it).
        const id = await authenticator.identify(
          {
            pubkey: header(request, 'x-pubkey'),
            timestamp: header(request, 'x-timestamp'),
            signature: header(request, 'x-signature'),
          },
          { wait: !limited(request) },
        );
        if (!id.ok) return refuse(request, reply, id.cause);
        request.identified = id.found;
        return undefined;
      },
      async authenticate(request: FastifyRequest, reply: FastifyReply) {
        const found = request.identified;
        // The integrator scope installs precheck before this hook: without its result there is nothing to verify.
        if (!found) return refuse(request, reply, 'not identified before the body was read');
        const result = await authenticator.verify(
          found,
          { method: request.method, target: request.raw.url ?? request.url, body: request.rawBody },
          (integratorId) => app.requestBudget.spend(request, integratorId),
        );
        if (!result.ok && result.retryAfterSec !== undefined) throw app.requestBudget.refusal(result.retryAfterSec);
        // A replay of a verified message is not counted against the address: it is a good client retrying.
        if (!result.ok) return refuse(request, reply, result.cause, !result.verified);
        request.integratorId = result.integratorId;
        request.keyId = result.keyId;
        return undefined;
      },
    });
  },
  { name: 'integrator-auth', dependencies: ['store', 'auth-failures', 'telemetry'] },
);
