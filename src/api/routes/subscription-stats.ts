import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { HOUR_MS } from '../../store/attempt-stats-repo.js';
import { errorResponses, notFound } from '../errors.js';
import { integratorOf } from '../request-context.js';
import { statsParams, statsQuery, subscriptionStats } from '../schemas/stats.js';
import { statsView } from '../views/stats.js';

/** A subscription's attempts hour by hour (docs/deliveries.md, "Delivery stats"): what the portal's Health page charts. */
export const subscriptionStatsRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/v1/webhooks/subscriptions/:subscription_id/stats',
    {
      schema: {
        tags: ['subscriptions'],
        summary: "A subscription's attempts, success rate and latency hour by hour (Herald's extension)",
        description:
          'The last `hours` hours (default 24, at most 168), the current one last: per hour the attempts recorded, ' +
          'how many the receiver answered 2xx and their latency, and the same over the whole window. Counted as ' +
          'attempts are recorded, within about a second; kept 8 days.',
        params: statsParams,
        querystring: statsQuery,
        response: { 200: subscriptionStats, ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => {
      const id = request.params.subscription_id;
      if (!(await app.store.subscriptions.findLive(integratorOf(request), id))) throw notFound();
      const { hours } = request.query;
      const now = Date.now();
      const from = now - (now % HOUR_MS) - (hours - 1) * HOUR_MS;
      return statsView(id, from, await app.store.attemptStats.hours(id, from, hours));
    },
  );
};
