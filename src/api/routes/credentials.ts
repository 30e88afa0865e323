import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { credentialOf } from '../request-context.js';
import { errorResponses } from '../errors.js';
import { credential } from '../schemas/integrators.js';

/** The credential scope of the calling key (spec §1 "inspect the current credential scope"). */
export const credentialRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/v1/credentials/current',
    {
      schema: {
        tags: ['credentials'],
        summary: 'The integrator and key that signed this request',
        response: { 200: credential, ...errorResponses(401) },
      },
    },
    async (request) => ({
      ...credentialOf(request),
      publicKey: `0x${String(request.headers['x-pubkey']).slice(2).toLowerCase()}`,
    }),
  );
};
