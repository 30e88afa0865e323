import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { errorResponses, notFound } from '../errors.js';
import { integratorOf } from '../request-context.js';
import { listKeysQuery, subscriptionKeyPage, subscriptionParams } from '../schemas/subscriptions.js';
import { keyView } from '../views/subscriptions.js';

/** Cursor scope of this listing: a cursor of another listing is refused. */
const CURSOR_SCOPE = 'subscription-keys';

/** Every signing key a subscription ever had (a subscription view shows only its newest; docs/subscriptions.md). */
export const subscriptionKeyRoutes: FastifyPluginAsyncZod = async (app) => {
  const repo = app.store.subscriptions;
  app.get(
    '/v1/webhooks/subscriptions/:subscription_id/keys',
    {
      schema: {
        tags: ['subscriptions'],
        summary: "A subscription's signing keys, newest first (Herald's extension)",
        description:
          'The whole key history, keyset-paged: the active key first, then the keys it replaced, so a delivery ' +
          'signed with any earlier key can still be verified by its X-Service-Webhook-Key-Id.',
        params: subscriptionParams,
        querystring: listKeysQuery,
        response: { 200: subscriptionKeyPage, ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => {
      const integratorId = integratorOf(request);
      const id = request.params.subscription_id;
      const found = await repo.findLive(integratorId, id);
      if (!found) throw notFound();
      const { cursor, limit } = request.query;
      // Bound to the integrator and the subscription: a cursor is refused anywhere else.
      const binding = { integratorId, subscriptionId: id };
      const position = cursor === undefined ? null : app.cursors.decode(CURSOR_SCOPE, cursor, binding);
      const { page, next } = await repo.keyPage(found, position, limit);
      return {
        keys: page.map((key) => keyView(found, key)),
        nextCursor: next && app.cursors.encode(CURSOR_SCOPE, next, binding),
      };
    },
  );
};
