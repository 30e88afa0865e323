import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { keysetPage } from '../../store/cursor.js';
import { errorResponses, HttpError, notFound } from '../errors.js';
import { takeHourlyQuota } from '../quotas.js';
import { integratorOf, logDelivery } from '../request-context.js';
import {
  attemptPage,
  attemptsQuery,
  delivery,
  deliveriesQuery,
  deliveryPage,
  deliveryParams,
  deliveryWithAttempts,
} from '../schemas/deliveries.js';
import { ATTEMPTS_SHOWN, attemptPageView, deliveryView } from '../views/deliveries.js';

const tags = ['deliveries'];

const retryRefusals = {
  subscription_deleted: 'the subscription of this delivery was deleted',
  delivery_busy: 'the delivery is between two runs of its workflow; try again',
  out_of_order:
    'its subscription delivers in order (ordering fifo): only the delivery whose turn it is, or the failed one that ' +
    'paused the subscription, can be retried',
} as const;

/** Delivery history (§6.7): list, one delivery with its attempts, manual retry. */
export const deliveryRoutes: FastifyPluginAsyncZod = async (app) => {
  const repo = app.store.deliveries;

  app.get(
    '/v1/webhooks/deliveries',
    {
      schema: {
        tags,
        summary: 'The delivery history, newest first',
        querystring: deliveriesQuery,
        response: { 200: deliveryPage, ...errorResponses(400, 401, 503) },
      },
    },
    async (request) => {
      const integratorId = integratorOf(request);
      const { cursor, limit, ...filters } = request.query;
      // The integrator is bound too, so a cursor that leaks to another integrator is refused, not reinterpreted.
      const binding = { integratorId, ...filters };
      const position = cursor === undefined ? null : app.cursors.decode('deliveries', cursor, binding);
      const { page, next } = keysetPage(await repo.list(integratorId, filters, position, limit + 1), limit);
      return {
        deliveries: page.map(deliveryView),
        nextCursor: next && app.cursors.encode('deliveries', next, binding),
      };
    },
  );

  app.get(
    '/v1/webhooks/deliveries/:delivery_id',
    {
      schema: {
        tags,
        summary: 'A delivery with its attempts',
        params: deliveryParams,
        response: { 200: deliveryWithAttempts, ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => {
      const found = await repo.findForIntegrator(integratorOf(request), request.params.delivery_id);
      if (!found) throw notFound();
      logDelivery(request, found);
      const { attempts, nextAfter } = attemptPageView(await app.store.attempts.page(found, 0, ATTEMPTS_SHOWN));
      return { ...deliveryView(found), attempts, attemptsNextAfter: nextAfter };
    },
  );

  app.get(
    '/v1/webhooks/deliveries/:delivery_id/attempts',
    {
      schema: {
        tags,
        summary: "A page of a delivery's attempts, oldest first (Herald's extension)",
        description:
          'Every attempt of the delivery in number order, `limit` at a time after attempt number `after`; ' +
          '`nextAfter` continues, null on the last page. Attempts are never changed once recorded.',
        params: deliveryParams,
        querystring: attemptsQuery,
        response: { 200: attemptPage, ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => {
      const found = await repo.findForIntegrator(integratorOf(request), request.params.delivery_id);
      if (!found) throw notFound();
      logDelivery(request, found);
      const { after, limit } = request.query;
      return attemptPageView(await app.store.attempts.page(found, after, limit));
    },
  );

  app.post(
    '/v1/webhooks/deliveries/:delivery_id/retry',
    {
      schema: {
        tags,
        summary: 'Attempt a delivery now',
        description:
          'A pending delivery attempts at once and then keeps its schedule; a terminal one (succeeded, failed, ' +
          'cancelled) is attempted once more, without a new schedule. Requests that reach an attempt in progress ' +
          "(not yet among the delivery's attempts when the request came) are served by it. 409 subscription_deleted when its subscription was deleted; 409 delivery_busy in the " +
          'rare case that its workflow stays between two runs for seconds; 409 out_of_order on a subscription with ' +
          'ordering fifo, unless the delivery holds its turn or is the failed one that paused the subscription. Counts against the hourly re-send budget ' +
          'of the integrator, shared with recovery campaigns: 429 quota_exceeded (Retry-After) once it is spent. A ' +
          'paused subscription does not hold a manual retry.',
        params: deliveryParams,
        response: { 202: delivery, ...errorResponses(400, 401, 404, 409, 429) },
      },
    },
    async (request, reply) => {
      const found = await repo.findForIntegrator(integratorOf(request), request.params.delivery_id);
      if (!found) throw notFound();
      logDelivery(request, found);
      await takeHourlyQuota(app, found.integratorId, 'resends');
      const verdict = await app.deliveryService.retry(found);
      if (!verdict.ok) throw new HttpError(409, verdict.reason, retryRefusals[verdict.reason]);
      logDelivery(request, found, verdict.attemptNumber);
      return reply.code(202).send(deliveryView(verdict.delivery));
    },
  );
};
