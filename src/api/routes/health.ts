import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { pingMongo } from '../../store/mongo.js';

const readiness = z.object({
  status: z.enum(['ready', 'not_ready']),
  checks: z.object({ mongodb: z.enum(['up', 'down']), temporal: z.enum(['up', 'down']) }),
});

type Readiness = z.infer<typeof readiness>;

/** How long one probe of MongoDB and Temporal answers readiness: anonymous callers cost at most a probe a second. */
export const READINESS_MAX_AGE_MS = 1_000;

/**
 * `probe`, run at most once per `maxAgeMs` (from its end) and never twice at once: callers meanwhile share the last
 * result, or the probe in flight.
 */
export function cachedProbe<T>(probe: () => Promise<T>, maxAgeMs: number, now: () => number = Date.now) {
  let last: { at: number; value: T } | undefined;
  let pending: Promise<T> | undefined;
  return (): Promise<T> => {
    if (last && now() - last.at < maxAgeMs) return Promise.resolve(last.value);
    pending ??= probe()
      .then((value) => {
        last = { at: now(), value };
        return value;
      })
      .finally(() => {
        pending = undefined;
      });
    return pending;
  };
}

export const healthRoutes: FastifyPluginAsyncZod = async (app) => {
  const ready = cachedProbe(async (): Promise<Readiness> => {
    const [mongoUp, temporalUp] = await Promise.all([pingMongo(app.mongo.db), app.temporal.ping()]);
    return {
      status: mongoUp && temporalUp ? 'ready' : 'not_ready',
      checks: { mongodb: mongoUp ? 'up' : 'down', temporal: temporalUp ? 'up' : 'down' },
    };
  }, READINESS_MAX_AGE_MS);

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
        summary: 'Readiness: MongoDB and Temporal answer (no auth; probed at most once a second)',
        response: { 200: readiness, 503: readiness },
      },
    },
    async (_request, reply) => {
      const body = await ready();
      return reply.code(body.status === 'ready' ? 200 : 503).send(body);
    },
  );
};
