import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { errorResponses, HttpError, notFound } from '../errors.js';
import { integratorOf } from '../request-context.js';
import { deliverySummary } from '../schemas/campaigns.js';
import { uuid } from '../schemas/common.js';
import { delivery, deliveryParams } from '../schemas/deliveries.js';
import { deliveryView } from '../views/deliveries.js';

/** Cancel one delivery; what a subscription has not had delivered (docs/deliveries.md). */
export const deliveryControlRoutes: FastifyPluginAsyncZod = async (app) => {
  app.post(
    '/v1/webhooks/deliveries/:delivery_id/cancel',
    {
      schema: {
        tags: ['deliveries'],
        summary: 'Cancel a pending delivery',
        description:
          'A pending delivery ends as cancelled (terminalReason cancelled_by_integrator) and makes no further ' +
          'attempt; an attempt already under way is recorded but leaves it cancelled. Cancelling a cancelled ' +
          'delivery answers it as it is (200); 409 delivery_finished when it has succeeded or failed.',
        params: deliveryParams,
        response: { 200: delivery, ...errorResponses(400, 401, 404, 409) },
      },
    },
    async (request) => {
      const found = await app.store.deliveries.findForIntegrator(integratorOf(request), request.params.delivery_id);
      if (!found) throw notFound();
      const verdict = await app.deliveryService.cancel(found);
      if (!verdict.ok)
        throw new HttpError(409, 'delivery_finished', `the delivery has already ${verdict.delivery.status}`);
      return deliveryView(verdict.delivery);
    },
  );

  app.get(
    '/v1/webhooks/subscriptions/:subscription_id/deliveries/summary',
    {
      schema: {
        tags: ['subscriptions'],
        summary: "A subscription's deliveries counted by status, and its oldest pending one",
        description:
          'What has not been delivered yet (pending), what never will be without a retry or a recovery campaign ' +
          '(failed, cancelled). Counted on each request, each count stopping at countLimit (docs/deliveries.md).',
        params: z.strictObject({ subscription_id: uuid }),
        response: { 200: deliverySummary, ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => {
      const id = request.params.subscription_id;
      if (!(await app.store.subscriptions.findLive(integratorOf(request), id))) throw notFound();
      const countLimit = app.config.HERALD_SUMMARY_COUNT_LIMIT;
      const { counts, oldestPending: d } = await app.store.deliveryReports.summary(id, countLimit);
      return {
        subscriptionId: id,
        counts,
        countLimit,
        oldestPending: d && {
          id: d._id,
          createdAt: d.createdAt.toISOString(),
          attemptCount: d.attemptCount,
          nextAttemptAt: d.nextAttemptAt?.toISOString() ?? null,
        },
      };
    },
  );
};
