import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { pingMongo } from '../../store/mongo.js';

const readiness = z.object({
  status: z.enum(['ready', 'not_ready']),
  checks: z.object({ mongodb: z.enum(['up', 'down']), temporal: z.enum(['up', 'down']) }),
});

export const healthRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/v1/health',
    {
      schema: {
        tags: ['health'],
        summary: 'Liveness (no auth)',
        response: { 200: z.object({ status: z.literal('ok') }) },
      },
    },
    async () => ({ status: 'ok' as const }),
  );

  app.get(
    '/v1/health/ready',
    {
      schema: {
        tags: ['health'],
        summary: 'Readiness: MongoDB and Temporal answer (no auth)',
        response: { 200: readiness, 503: readiness },
      },
    },
    async (_request, reply) => {
      const [mongoUp, temporalUp] = await Promise.all([pingMongo(app.mongo.db), app.temporal.ping()]);
      const body = {
        status: mongoUp && temporalUp ? ('ready' as const) : ('not_ready' as const),
        checks: {
          mongodb: mongoUp ? ('up' as const) : ('down' as const),
          temporal: temporalUp ? ('up' as const) : ('down' as const),
        },
      };
      return reply.code(body.status === 'ready' ? 200 : 503).send(body);
    },
  );
};
