import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { PortalSessionDoc } from '../../../store/portal-sessions-repo.js';
import { crossSiteProblem } from '../../../portal/origin.js';
import { csrfOf, idOf } from '../../../portal/secrets.js';
import { forbidden } from '../../errors.js';

/** The session cookie (HttpOnly, SameSite=Strict; Secure behind HTTPS). */
export const PORTAL_COOKIE = 'herald_portal';

declare module 'fastify' {
  interface FastifyRequest {
    /** The portal session a request carries instead of a signature (docs/portal.md), once found. */
    portalSession: PortalSessionDoc | null;
  }
  interface FastifyInstance {
    /** The integrator routes' second credential: a portal session's cookie (src/api/scopes/integrator-scope.ts). */
    portalAuth: {
      /** Whether the request comes with a portal cookie and no signature headers. */
      carries(request: FastifyRequest): boolean;
      /** The live session its cookie names, or null (also /portal/session's own guard). */
      find(request: FastifyRequest): Promise<PortalSessionDoc | null>;
      /** onRequest: the session, live (401 otherwise, the same body as a bad signature). */
      precheck(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | undefined>;
      /** preValidation: a write needs the manage scope, the portal's origin and the CSRF token; spends the budget. */
      authenticate(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | undefined>;
    };
  }
}

const READS = new Set(['GET', 'HEAD']);

export const portalAuthPlugin = fp(
  async (app: FastifyInstance) => {
    app.decorateRequest('portalSession', null);
    const { refuse } = app.authFailures;
    const secretOf = (request: FastifyRequest): string | undefined => request.cookies[PORTAL_COOKIE];

    app.decorate('portalAuth', {
      carries: (request: FastifyRequest) =>
        request.headers['x-pubkey'] === undefined && secretOf(request) !== undefined,
      async find(request: FastifyRequest) {
        const secret = secretOf(request);
        return secret === undefined ? null : await app.store.portalSessions.findSession(idOf(secret));
      },
      async precheck(request: FastifyRequest, reply: FastifyReply) {
        const session = await app.portalAuth.find(request);
        if (!session) return refuse(request, reply, 'portal session unknown, ended or expired');
        request.portalSession = session;
        return undefined;
      },
      async authenticate(request: FastifyRequest, reply: FastifyReply) {
        const session = request.portalSession;
        const secret = secretOf(request);
        if (!session || secret === undefined) return refuse(request, reply, 'no portal session before the body');
        if (!READS.has(request.method)) {
          if (session.scope !== 'manage') throw forbidden('this portal session is read-only');
          const problem = crossSiteProblem(app.config, request, csrfOf(secret));
          if (problem) throw forbidden(problem);
        }
        const wait = app.requestBudget.spend(request, session.integratorId);
        if (wait > 0) throw app.requestBudget.refusal(wait);
        request.integratorId = session.integratorId;
        return undefined;
      },
    });
  },
  { name: 'portal-auth', dependencies: ['store', 'auth-failures', 'request-budget'] },
);
