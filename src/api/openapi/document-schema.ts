import type { FastifySchema } from 'fastify';
import type { JSONSchema } from 'zod/v4/core';
import { errorBodySchema } from '../errors.js';
import { jsonValue } from '../schemas/common.js';

type OverrideContext = { zodSchema: { _zod: { def: { type: string } } }; jsonSchema: JSONSchema.BaseSchema };

/**
 * How zod schemas appear in the OpenAPI document. The type provider's own override (empty union branches dropped)
 * is kept; a query integer parsed from its string form (`limitParam`) shows as the integer a client sends, without
 * the string's `pattern`; any JSON value is the empty schema (a recursive union makes generators emit types that
 * refer to themselves, which TypeScript refuses).
 */
export function documentOverride(ctx: OverrideContext): void {
  const json = ctx.jsonSchema;
  if (ctx.zodSchema._zod.def === (jsonValue as unknown as OverrideContext['zodSchema'])._zod.def) {
    delete json.anyOf;
    return;
  }
  if (ctx.zodSchema._zod.def.type === 'union' && json.anyOf) {
    json.anyOf = json.anyOf.filter((branch) => Object.keys(branch).length > 0);
  }
  if (json.type === 'integer' || json.type === 'number') delete json.pattern;
}

type RouteSchema = FastifySchema & { hide?: boolean; response?: unknown };

/** Methods whose request body Fastify reads (and so can refuse: 400 malformed, 413 too large, 415 not JSON). */
const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/**
 * Every error a route can answer, declared with the one error shape: 400 for any validated input or body, 401 and
 * 429 for an authenticated route (a credential that does not verify; the failure limiter's `too_many_auth_failures`,
 * the request budget's `rate_limited`), 413 and 415 for any method with a body (size limit, content type, whether or
 * not the route takes one), 500 everywhere. A route's own declarations (404, 409, 503…) are kept.
 */
export function withErrorResponses(
  schema: RouteSchema | undefined,
  method: string | readonly string[] = 'GET',
): RouteSchema | undefined {
  if (!schema || schema.hide) return schema;
  const statuses = [500];
  const withBody = [method].flat().some((m) => BODY_METHODS.has(m.toUpperCase()));
  if (schema.body || schema.querystring || schema.params || withBody) statuses.push(400);
  if (schema.security && schema.security.length > 0) statuses.push(401, 429);
  if (withBody) statuses.push(413, 415);
  const response: Record<string, unknown> = { ...(schema.response as Record<string, unknown> | undefined) };
  for (const status of statuses) response[status] ??= errorBodySchema;
  return { ...schema, response };
}

/** Every 429 carries Retry-After (src/api/errors.ts `tooMany`): the document says so on each 429 response. */
export function withRetryAfter<T extends { schema?: unknown }>(result: T): T {
  const response = (result.schema as { response?: Record<string, object> } | undefined)?.response;
  const limited = response?.['429'];
  if (response && limited) {
    const retryAfter = { type: 'integer', minimum: 1, description: 'whole seconds to wait before asking again' };
    response['429'] = { ...limited, headers: { 'Retry-After': retryAfter } };
  }
  return result;
}
