import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { issueLink } from '../../portal/links.js';
import { portalUrlOf } from '../../portal/origin.js';
import { errorResponses, forbidden, notFound } from '../errors.js';
import { integratorOf } from '../request-context.js';
import { integratorParams } from '../schemas/integrators.js';
import { portalLink, portalLinkBody, portalRevoked } from '../schemas/portal.js';

const description =
  'A single-use link into the integrator portal, valid 5 minutes: opening it exchanges its token for a session ' +
  'cookie of `sessionSeconds` (docs/portal.md). Give it to a person (or open it in your own dashboard); sessions ' +
  'end at sign-out, at their expiry, or when any key of the integrator is revoked.';

/** The integrator's own link (signed): a portal session cannot make one, so no session outlives or outranks its own. */
export const portalLinkRoutes: FastifyPluginAsyncZod = async (app) => {
  app.post(
    '/v1/portal/sessions',
    {
      schema: {
        tags: ['portal'],
        summary: 'A link into the portal',
        description,
        body: portalLinkBody,
        response: { 201: portalLink, ...errorResponses(400, 401, 403) },
      },
    },
    async (request, reply) => {
      if (request.portalSession) throw forbidden('a portal session cannot open another: sign the request');
      const { scope, sessionSeconds } = request.body;
      const link = { integratorId: integratorOf(request), scope, sessionSeconds };
      const made = await issueLink(app.store.portalSessions, link, portalUrlOf(app.config, request));
      return await reply.code(201).send({ url: made.url, expiresAt: made.expiresAt.toISOString() });
    },
  );
};

/** The operator's links and revocation (admin scope). */
export const adminPortalRoutes: FastifyPluginAsyncZod = async (app) => {
  const tags = ['internal: portal'];
  app.post(
    '/internal/v1/integrators/:integratorId/portal-links',
    {
      schema: {
        tags,
        summary: "A link into an integrator's portal",
        description,
        params: integratorParams,
        body: portalLinkBody,
        response: { 201: portalLink, ...errorResponses(400, 401, 404) },
      },
    },
    async (request, reply) => {
      const { integratorId } = request.params;
      if (!(await app.store.integrators.find(integratorId))) throw notFound();
      const link = { integratorId, ...request.body };
      const made = await issueLink(app.store.portalSessions, link, portalUrlOf(app.config, request));
      return await reply.code(201).send({ url: made.url, expiresAt: made.expiresAt.toISOString() });
    },
  );
  app.delete(
    '/internal/v1/integrators/:integratorId/portal-sessions',
    {
      schema: {
        tags,
        summary: 'End every portal session and unused link of an integrator',
        params: integratorParams,
        response: { 200: portalRevoked, ...errorResponses(400, 401) },
      },
    },
    async (request) => ({ revoked: await app.store.portalSessions.revokeIntegrator(request.params.integratorId) }),
  );
};
