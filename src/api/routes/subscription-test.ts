import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { withTimeout } from '../../util/with-timeout.js';
import { errorResponses, HttpError, notFound } from '../errors.js';
import { keyedId } from '../plugins/app/idempotency.js';
import { integratorOf } from '../request-context.js';
import { takeHourlyQuota } from '../quotas.js';
import { testDeliveryResponse } from '../schemas/deliveries.js';
import { uuid } from '../schemas/common.js';
import { attemptView, deliveryView, testEventView } from '../views/deliveries.js';

/** The HTTP client gives up after ~15 s; the answer waits a little longer for the attempt to be recorded. */
const TEST_WAIT_MS = 30_000;

export const subscriptionTestRoutes: FastifyPluginAsyncZod = async (app) => {
  app.post(
    '/v1/webhooks/subscriptions/:subscription_id/test',
    {
      schema: {
        tags: ['subscriptions'],
        summary: 'Send a signed test delivery',
        description:
          'Stores a webhook.test event and its delivery, makes the first attempt through the delivery workflow and ' +
          'answers 201 once it has finished, whatever its outcome. A failed test delivery follows the normal schedule. ' +
          'No request made: 409 subscription_deleted when the subscription was deleted meanwhile; 500 internal_error ' +
          "when Herald cannot open the subscription's signing key (the delivery fails: signing_key_unavailable).",
        // §4.2 (and §7) answer a subscription that does not exist with 404; a malformed id names none either.
        params: z.strictObject({
          subscription_id: z.string().meta({ format: 'uuid', description: 'the subscription id; not a uuid: 404' }),
        }),
        response: { 201: testDeliveryResponse, ...errorResponses(400, 401, 404, 409, 429, 500, 504) },
      },
    },
    async (request, reply) => {
      const id = uuid.safeParse(request.params.subscription_id);
      const subscription = id.success ? await app.store.subscriptions.findLive(integratorOf(request), id.data) : null;
      if (!subscription) throw notFound();
      await takeHourlyQuota(app, subscription.integratorId, 'test_sends');
      const eventId = keyedId(request, `test:${subscription._id}`);
      const sent = await withTimeout(app.deliveryService.testSend(subscription, eventId), TEST_WAIT_MS, null);
      if (!sent)
        throw new HttpError(504, 'attempt_pending', 'the test attempt did not finish in time; see its delivery');
      // No request was made: the subscription went meanwhile (the client's 409), or Herald could not open its signing
      // key (Herald's fault: 500, the delivery failed with terminalReason signing_key_unavailable, logged by the worker).
      if (!sent.attempt && sent.outcome === 'signing_key_unavailable') throw new HttpError(500, 'internal_error');
      if (!sent.attempt) throw new HttpError(409, 'subscription_deleted', 'the subscription was deleted meanwhile');
      return reply.code(201).send({
        event: testEventView(sent.event, subscription._id),
        delivery: deliveryView(sent.delivery),
        attempt: attemptView(sent.attempt),
      });
    },
  );
};
