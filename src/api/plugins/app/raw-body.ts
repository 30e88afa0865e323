import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { prependPreValidation } from '../../hooks/prepend-hook.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** A JSON parse error, raised only after authentication so an unauthenticated caller always gets 401 first. */
    deferredBodyError?: Error;
  }
}

/**
 * JSON bodies are read as bytes, kept on `request.rawBody` (request signatures cover the exact bytes, never a
 * re-serialisation), then parsed with Fastify's own prototype-poisoning-safe parser. JSON is the only body type:
 * Fastify's default text/plain parser is removed, since a body it parsed would reach a route without being covered
 * by the signature; any other content type is refused with 415 before authentication.
 */
export const rawBodyPlugin = fp(
  async (app: FastifyInstance) => {
    const parseJson = app.getDefaultJsonParser('error', 'error');
    app.removeAllContentTypeParsers();
    app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
      const bytes = body as Buffer;
      request.rawBody = bytes;
      // `Content-Type: application/json` with an empty body is no body (clients set the header on every request);
      // a route that needs a body then answers its validation error.
      if (bytes.length === 0) return done(null, undefined);
      void parseJson(request, bytes.toString('utf8'), (err, parsed) => {
        if (err) request.deferredBodyError = err;
        done(null, err ? undefined : parsed);
      });
    });
    // A route-level hook, so that it runs after the auth guard that integrator-auth prepends later.
    app.addHook('onRoute', (route) =>
      prependPreValidation(route, async (request) => {
        if (request.deferredBodyError) throw request.deferredBodyError;
      }),
    );
  },
  { name: 'raw-body' },
);
