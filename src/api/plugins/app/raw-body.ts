import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { prependPreValidation } from '../../hooks/prepend-hook.js';
import { inspectJsonBody } from '../../json-body.js';
import type { JsonText } from '../../../domain/json-text.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** A JSON parse error, raised only after authentication so an unauthenticated caller always gets 401 first. */
    deferredBodyError?: Error;
    /** The exact text of each top-level member of a JSON object body (`data` of an event is carried as sent). */
    bodyMembers?: ReadonlyMap<string, JsonText>;
  }
}

/**
 * JSON bodies are read as bytes, kept on `request.rawBody` (request signatures cover the exact bytes, never a
 * re-serialisation), then parsed with Fastify's own prototype-poisoning-safe parser. JSON is the only body type:
 * Fastify's default text/plain parser is removed, since a body it parsed would reach a route without being covered
 * by the signature; any other content type is refused with 415 before authentication. Before parsing, every body
 * is checked by inspectJsonBody (UTF-8, nesting depth, number range), so no schema ever sees a body that could
 * overflow its stack; a refusal is deferred like a parse error.
 */
export const rawBodyPlugin = fp(
  async (app: FastifyInstance) => {
    // Declared from the start: every request keeps one shape (src/api/request-context.ts says why).
    app.decorateRequest('deferredBodyError', undefined);
    app.decorateRequest('bodyMembers', undefined);
    const parseJson = app.getDefaultJsonParser('error', 'error');
    app.removeAllContentTypeParsers();
    app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
      const bytes = body as Buffer;
      request.rawBody = bytes;
      // `Content-Type: application/json` with an empty body is no body (clients set the header on every request);
      // a route that needs a body then answers its validation error.
      if (bytes.length === 0) return done(null, undefined);
      const { text, members, error } = inspectJsonBody(bytes);
      request.bodyMembers = members;
      if (error) {
        request.deferredBodyError = error;
        done(null, undefined);
        return;
      }
      void parseJson(request, text, (err, parsed) => {
        if (err) request.deferredBodyError = err;
        done(null, err ? undefined : parsed);
      });
    });
    // A route-level hook: Fastify runs a scope's own hooks (the auth guards, src/api/scopes/) before route-level ones,
    // so an unauthenticated caller gets 401, never the parse error.
    app.addHook('onRoute', (route) =>
      prependPreValidation(route, async (request) => {
        if (request.deferredBodyError) throw request.deferredBodyError;
      }),
    );
  },
  { name: 'raw-body' },
);
