import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { createJsonSchemaTransform, createJsonSchemaTransformObject } from 'fastify-type-provider-zod';
import { documentOverride, withErrorResponses, withRetryAfter } from '../../openapi/document-schema.js';

const zodToJsonConfig = { override: documentOverride };
const baseTransform = createJsonSchemaTransform({ zodToJsonConfig });

/** The OpenAPI 3.1 document, generated from the routes' zod schemas, at /openapi.json; rendered at /docs. */
export const openapiPlugin = fp(
  async (app: FastifyInstance) => {
    await app.register(swagger, {
      openapi: {
        openapi: '3.1.0',
        info: {
          title: 'Herald — integrator events and webhooks API',
          version: '0.2.0',
          description:
            'Event history and signed webhook delivery for integrators. Every /v1 route except health requires the ' +
            'X-Pubkey, X-Timestamp and X-Signature headers (ECDSA P-256, SHA-256, over timestamp + METHOD + ' +
            'path_and_query + body).',
        },
        components: {
          securitySchemes: {
            pubkey: {
              type: 'apiKey',
              in: 'header',
              name: 'X-Pubkey',
              description: '0x + compressed SEC1 P-256 public key (hex)',
            },
            timestamp: {
              type: 'apiKey',
              in: 'header',
              name: 'X-Timestamp',
              description: 'Unix seconds, within 60 s of server time',
            },
            signature: {
              type: 'apiKey',
              in: 'header',
              name: 'X-Signature',
              description: '0x + DER ECDSA-SHA256 signature (hex)',
            },
            adminToken: { type: 'http', scheme: 'bearer', description: 'HERALD_ADMIN_TOKEN, internal routes only' },
            portalLink: {
              type: 'apiKey',
              in: 'header',
              name: 'X-Portal-Link',
              description: "a portal link's token (its URL's #token=…), single use: POST /portal/session only",
            },
            portalSession: {
              type: 'apiKey',
              in: 'cookie',
              name: 'herald_portal',
              description: 'the portal session cookie (docs/portal.md); also accepted by every /v1 route but health',
            },
          },
        },
      },
      transform: (input) =>
        withRetryAfter(
          baseTransform({ ...input, schema: withErrorResponses(input.schema, input.route.method) ?? input.schema }),
        ),
      transformObject: createJsonSchemaTransformObject({ zodToJsonConfig }),
    });
    await app.register(swaggerUi, { routePrefix: '/docs', staticCSP: true });
    app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  },
  { name: 'openapi' },
);
