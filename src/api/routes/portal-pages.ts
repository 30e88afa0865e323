import { existsSync } from 'node:fs';
import { join } from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { portalAssetsDir } from '../../portal/assets.js';
import { openSession } from '../../portal/links.js';
import { crossSiteProblem } from '../../portal/origin.js';
import { csrfOf } from '../../portal/secrets.js';
import type { PortalSessionDoc } from '../../store/portal-sessions-repo.js';
import { PORTAL_COOKIE } from '../plugins/app/portal-auth.js';
import { errorResponses, forbidden, HttpError, unauthorized } from '../errors.js';
import { portalSession } from '../schemas/portal.js';

const tags = ['portal'];

/**
 * The portal's page and its session (docs/portal.md): the built single-page app under /portal/, and /portal/session
 * where a link's token becomes the session cookie, the page learns who it is, and signs out. Every data call of the
 * page goes to the integrator API itself, authorized there exactly as a signed request (the portal credential).
 */
export const portalPageRoutes: FastifyPluginAsyncZod = async (app) => {
  const { config } = app;
  const csp = [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    `frame-ancestors ${config.HERALD_PORTAL_FRAME_ANCESTORS}`,
  ].join('; ');
  app.addHook('onSend', async (request, reply) => {
    void reply
      .header('content-security-policy', csp)
      .header('x-content-type-options', 'nosniff')
      .header('referrer-policy', 'no-referrer');
    if (request.url.startsWith('/portal/session')) void reply.header('cache-control', 'no-store');
  });

  const answer = (session: PortalSessionDoc, secret: string) => ({
    integratorId: session.integratorId,
    scope: session.scope,
    expiresAt: session.expiresAt.toISOString(),
    csrfToken: csrfOf(secret),
  });
  const setCookie = (request: FastifyRequest, reply: FastifyReply, secret: string, expires: Date) =>
    reply.setCookie(PORTAL_COOKIE, secret, {
      httpOnly: true,
      sameSite: 'strict',
      secure: request.protocol === 'https',
      path: '/',
      expires,
    });
  // Each credential is checked before any body is read (onRequest), as the integrator routes' are.
  const withLink = async (request: FastifyRequest) => {
    const token = request.headers['x-portal-link'];
    if (typeof token !== 'string' || token.length > 200) throw unauthorized();
  };
  const withSession = async (request: FastifyRequest) => {
    request.portalSession = await app.portalAuth.find(request);
    if (!request.portalSession) throw unauthorized();
  };
  const sessionOf = (request: FastifyRequest) => ({
    session: request.portalSession!,
    secret: request.cookies[PORTAL_COOKIE]!,
  });

  app.post(
    '/portal/session',
    {
      schema: {
        tags,
        summary: "Open a portal session with a link's token (single use)",
        security: [{ portalLink: [] }],
        response: { 200: portalSession, ...errorResponses(401, 403) },
      },
      onRequest: withLink,
    },
    async (request, reply) => {
      const token = request.headers['x-portal-link'] as string;
      // From the portal's page only: another site cannot sign a browser in to a session of its choosing.
      const problem = crossSiteProblem(config, request, null);
      if (problem) throw forbidden(problem);
      const opened = await openSession(app.store.portalSessions, token);
      if (!opened) throw unauthorized();
      setCookie(request, reply, opened.secret, opened.session.expiresAt);
      return answer(opened.session, opened.secret);
    },
  );
  app.get(
    '/portal/session',
    {
      schema: {
        tags,
        summary: 'The portal session of this browser',
        security: [{ portalSession: [] }],
        response: { 200: portalSession, ...errorResponses(401) },
      },
      onRequest: withSession,
    },
    async (request) => {
      const { session, secret } = sessionOf(request);
      return answer(session, secret);
    },
  );
  app.delete(
    '/portal/session',
    {
      schema: {
        tags,
        summary: 'Sign out',
        security: [{ portalSession: [] }],
        response: { 204: z.null(), ...errorResponses(401, 403) },
      },
      onRequest: withSession,
    },
    async (request, reply) => {
      const { session, secret } = sessionOf(request);
      const problem = crossSiteProblem(config, request, csrfOf(secret));
      if (problem) throw forbidden(problem);
      await app.store.portalSessions.remove(session._id);
      return await reply.clearCookie(PORTAL_COOKIE, { path: '/' }).code(204).send(null);
    },
  );

  const root = portalAssetsDir(config.HERALD_PORTAL_ASSETS);
  if (!existsSync(join(root, 'index.html'))) {
    app.log.warn({ root }, 'portal: assets not built (npm run build:portal); /portal/ answers 503');
    app.get('/portal/*', { schema: { hide: true } }, async () => {
      throw new HttpError(503, 'unavailable', 'the portal is not built on this server: npm run build:portal');
    });
    return;
  }
  // Hashed asset names: cached for good; the page itself is re-read on every visit (a deploy takes effect at once).
  await app.register(fastifyStatic, {
    root,
    prefix: '/portal/',
    index: false,
    wildcard: false,
    schemaHide: true,
    cacheControl: false,
    setHeaders: (reply, path) =>
      void reply.header(
        'cache-control',
        path.startsWith(join(root, 'assets')) ? 'public, max-age=31536000, immutable' : 'no-cache',
      ),
  });
  // Every other path under /portal/ is a page of the app: the same index.html (the app routes in the browser).
  const page = async (_request: FastifyRequest, reply: FastifyReply) => await reply.sendFile('index.html', root);
  app.get('/portal/', { schema: { hide: true } }, page);
  app.get('/portal/*', { schema: { hide: true } }, page);
};
