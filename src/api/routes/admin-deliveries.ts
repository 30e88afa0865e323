import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { keysetPage } from '../../store/cursor.js';
import type { DeliveryDoc } from '../../store/documents.js';
import { deliveryWorkflowId } from '../../../workflows/messages.js';
import { errorResponses, HttpError, notFound } from '../errors.js';
import { logDelivery } from '../request-context.js';
import {
  adminDelivery,
  adminDeliveriesQuery,
  adminDeliveryPage,
  adminDeliveryParams,
  adminDeliveryWithAttempts,
} from '../schemas/admin-deliveries.js';
import { ATTEMPTS_SHOWN, attemptPageView, deliveryView } from '../views/deliveries.js';

const adminSecurity = [{ adminToken: [] }];
const tags = ['internal: deliveries'];
const CURSOR_SCOPE = 'admin-deliveries';

/** Operators list, inspect and retry any integrator's deliveries (admin bearer token; `herald admin deliveries`). */
export const adminDeliveryRoutes: FastifyPluginAsyncZod = async (app) => {
  const repo = app.store.deliveries;
  const view = (d: DeliveryDoc) => ({
    ...deliveryView(d),
    integratorId: d.integratorId,
    workflowId: deliveryWorkflowId(d._id),
    namespace: app.config.TEMPORAL_NAMESPACE,
  });

  app.get(
    '/internal/v1/deliveries',
    {
      schema: {
        tags,
        security: adminSecurity,
        summary: "Every integrator's deliveries, newest first",
        querystring: adminDeliveriesQuery,
        response: { 200: adminDeliveryPage, ...errorResponses(400, 401) },
      },
    },
    async (request) => {
      const { cursor, limit, ...filters } = request.query;
      const position = cursor === undefined ? null : app.cursors.decode(CURSOR_SCOPE, cursor, filters);
      const rows = await app.store.deliveryReports.operatorPage(filters, position, limit + 1);
      const { page, next } = keysetPage(rows, limit);
      return { deliveries: page.map(view), nextCursor: next && app.cursors.encode(CURSOR_SCOPE, next, filters) };
    },
  );

  app.get(
    '/internal/v1/deliveries/:delivery_id',
    {
      schema: {
        tags,
        security: adminSecurity,
        summary: 'A delivery with its attempts, next attempt time and workflow',
        params: adminDeliveryParams,
        response: { 200: adminDeliveryWithAttempts, ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => {
      const found = await repo.findById(request.params.delivery_id);
      if (!found) throw notFound();
      logDelivery(request, found);
      const { attempts, nextAfter } = attemptPageView(await app.store.attempts.page(found, 0, ATTEMPTS_SHOWN));
      return { ...view(found), attempts, attemptsNextAfter: nextAfter };
    },
  );

  app.post(
    '/internal/v1/deliveries/:delivery_id/retry',
    {
      schema: {
        tags,
        security: adminSecurity,
        summary: 'Attempt a delivery now (as the integrator route does)',
        params: adminDeliveryParams,
        response: { 202: adminDelivery, ...errorResponses(400, 401, 404, 409) },
      },
    },
    async (request, reply) => {
      const found = await repo.findById(request.params.delivery_id);
      if (!found) throw notFound();
      logDelivery(request, found);
      const verdict = await app.deliveryService.retry(found);
      if (!verdict.ok) throw new HttpError(409, verdict.reason, 'the subscription of this delivery was deleted');
      logDelivery(request, found, verdict.attemptNumber);
      return reply.code(202).send(view(verdict.delivery));
    },
  );
};
