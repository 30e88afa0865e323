import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';

/**
 * JSON bodies are read as bytes, kept on `request.rawBody` (request signatures cover the exact bytes, never a
 * re-serialisation), then parsed with Fastify's own prototype-poisoning-safe parser.
 */
export const rawBodyPlugin = fp(
  async (app: FastifyInstance) => {
    const parseJson = app.getDefaultJsonParser('error', 'error');
    app.removeContentTypeParser('application/json');
    app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
      const bytes = body as Buffer;
      request.rawBody = bytes;
      void parseJson(request, bytes.toString('utf8'), done);
    });
  },
  { name: 'raw-body' },
);
