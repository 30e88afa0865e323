import type { FastifyError, FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { hasZodFastifySchemaValidationErrors, isResponseSerializationError } from 'fastify-type-provider-zod';
import { CursorError } from '../../../store/cursor.js';
import { ListingTimeout } from '../../../store/listing/index.js';
import { HttpError, type ErrorBody } from '../../errors.js';
import { createRouteMethods } from '../../route-methods.js';

function validationMessage(error: FastifyError): string {
  if (!hasZodFastifySchemaValidationErrors(error)) return error.message;
  const context = error.validationContext ?? 'request';
  return error.validation
    .map((v) => {
      const field = v.instancePath.replace(/^\//, '').replaceAll('/', '.');
      const detail = v.message ?? 'is invalid';
      return field ? `${context}.${field}: ${detail}` : `${context}: ${detail}`;
    })
    .join('; ');
}

/** Fastify's own 4xx codes mapped onto our error codes. */
const frameworkCodes: Record<string, string> = {
  FST_ERR_CTP_BODY_TOO_LARGE: 'payload_too_large',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'unsupported_media_type',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'invalid_request',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'invalid_request',
};

export const errorHandlerPlugin = fp(
  async (app: FastifyInstance) => {
    app.setErrorHandler((error: FastifyError, request, reply) => {
      let body: ErrorBody;
      if (error instanceof HttpError) {
        body = error.toBody();
        void reply.headers(error.headers);
      } else if (error instanceof CursorError) {
        body = { error: 'invalid_cursor', status: 400, message: error.message };
      } else if (error instanceof ListingTimeout) {
        // A listing page whose first query ran out of its time (src/store/listing/scan-budget.ts).
        body = { error: 'overloaded', status: 503 };
        void reply.header('retry-after', '1');
      } else if (hasZodFastifySchemaValidationErrors(error)) {
        body = { error: 'invalid_request', status: 400, message: validationMessage(error) };
      } else if (isResponseSerializationError(error)) {
        request.log.error({ err: error }, 'response does not match its schema');
        body = { error: 'internal_error', status: 500 };
      } else if (typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 500) {
        // Malformed JSON (SyntaxError with 400), body too large, wrong content type…
        const code = frameworkCodes[error.code] ?? (error.statusCode === 400 ? 'invalid_request' : 'client_error');
        body = { error: code, status: error.statusCode, message: error.message };
      } else {
        request.log.error({ err: error }, 'unhandled error');
        body = { error: 'internal_error', status: 500 };
      }
      // Load shedding (src/api/ingest-gate.ts) is counted by the request metrics: no error line per shed request.
      const shed = error instanceof HttpError && error.code === 'overloaded';
      if (body.status >= 500 && !shed) request.log.error({ err: error }, 'request failed');
      return reply.code(body.status).type('application/json').send(body);
    });

    const notFoundBody: ErrorBody = { error: 'not_found', status: 404 };
    // A known path asked with a method it does not answer (any method, `QUERY` or `PROPFIND` included) is a 405
    // naming the methods it does answer, not a 404: the resource exists. Both are decided on arrival, before Fastify
    // reads (or, for QUERY, demands a content type for) a body no route will take.
    const routeMethods = createRouteMethods();
    app.addHook('onRoute', (route) => routeMethods.add(route));
    app.addHook('onRequest', async (request, reply) => {
      if (!request.is404) return;
      const allowed = routeMethods.allowed(request.url);
      if (allowed.length === 0 || allowed.includes(request.method)) return await reply.code(404).send(notFoundBody);
      const body: ErrorBody = {
        error: 'method_not_allowed',
        status: 405,
        message: `${request.method} is not allowed here; allowed: ${allowed.join(', ')}`,
      };
      return await reply.code(405).header('allow', allowed.join(', ')).send(body);
    });
    app.setNotFoundHandler((_request, reply) => reply.code(404).send(notFoundBody));
  },
  { name: 'error-handler' },
);
