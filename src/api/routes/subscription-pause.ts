import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { PauseVerdict } from '../../delivery/index.js';
import type { SubscriptionDoc } from '../../store/documents.js';
import { conflict, errorResponses, notFound } from '../errors.js';
import { integratorOf } from '../request-context.js';
import { subscription, subscriptionParams } from '../schemas/subscriptions.js';
import { subscriptionView } from '../views/subscriptions.js';

const tags = ['subscriptions'];
const PATH = '/v1/webhooks/subscriptions/:subscription_id';

/** Pause and resume a subscription without losing a delivery (docs/subscriptions.md, "Pause and resume"). */
export const subscriptionPauseRoutes: FastifyPluginAsyncZod = async (app) => {
  const view = async (doc: SubscriptionDoc) => subscriptionView(doc, await app.store.subscriptions.listKeys([doc]));
  /** The subscription paused or resumed; 404 when there is none, 409 when it is disabled or was paused again. */
  const answer = async (verdict: PauseVerdict, action: string) => {
    if (verdict.ok) return await view(verdict.subscription);
    if (verdict.reason === 'not_found') throw notFound();
    if (verdict.reason === 'paused_again') throw conflict('the subscription was paused again meanwhile'); // a race
    throw conflict(`the subscription is disabled: enable it (PATCH) to ${action} it`);
  };

  app.post(
    `${PATH}/pause`,
    {
      schema: {
        tags,
        summary: 'Pause a subscription: its deliveries are made and held, none is attempted',
        description:
          'Idempotent (a paused subscription is answered as it is). New events still create deliveries; they and ' +
          'the deliveries already waiting are held without using a step of their schedule until POST …/resume. ' +
          'Manual retries and test sends still reach the endpoint. 409 when the subscription is disabled.',
        params: subscriptionParams,
        response: { 200: subscription, ...errorResponses(400, 401, 404, 409) },
      },
    },
    async (request) =>
      await answer(await app.deliveryService.pause(integratorOf(request), request.params.subscription_id), 'pause'),
  );

  app.post(
    `${PATH}/resume`,
    {
      schema: {
        tags,
        summary: 'Resume a paused subscription: its held deliveries are released, oldest first, at a bounded rate',
        description:
          'Idempotent (an enabled subscription is answered as it is, and any delivery still held is released). ' +
          'Held deliveries are attempted oldest first, at most HERALD_RESUME_RATE per second, each continuing its ' +
          'schedule where it stood. 409 when the subscription is disabled.',
        params: subscriptionParams,
        response: { 200: subscription, ...errorResponses(400, 401, 404, 409) },
      },
    },
    async (request) =>
      await answer(await app.deliveryService.resume(integratorOf(request), request.params.subscription_id), 'resume'),
  );
};
