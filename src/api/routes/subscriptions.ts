import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { keysetPage } from '../../store/cursor.js';
import { z } from 'zod';
import type { SubscriptionDoc } from '../../store/documents.js';
import type { SubscriptionChanges } from '../../store/subscriptions-repo.js';
import { conflict, errorResponses, notFound } from '../errors.js';
import { integratorOf } from '../request-context.js';
import {
  createSubscriptionBody,
  listSubscriptionsQuery,
  subscription,
  subscriptionPage,
  subscriptionParams,
  updateSubscriptionBody,
} from '../schemas/subscriptions.js';
import { keyedId } from '../plugins/app/idempotency.js';
import { acceptedCallbackUrl, newSigningKey, storedEventTypes } from '../subscription-input.js';
import { checkSubscriptionQuota, takeHourlyQuota } from '../quotas.js';
import { subscriptionView, subscriptionViews } from '../views/subscriptions.js';

const tags = ['subscriptions'];
const PATH = '/v1/webhooks/subscriptions';
/** Cursor scope of this listing: a cursor of another listing is refused. */
const CURSOR_SCOPE = 'subscriptions';

/** Webhook subscriptions (§2.4, §4.3, §6.2, §6.3): CRUD and signing-key rotation; decisions in docs/subscriptions.md. */
export const subscriptionRoutes: FastifyPluginAsyncZod = async (app) => {
  const repo = app.store.subscriptions;
  const view = async (doc: SubscriptionDoc) => subscriptionView(doc, await repo.listKeys([doc]));

  app.post(
    PATH,
    {
      schema: {
        tags,
        summary: 'Create a subscription and its P-256 signing key',
        description:
          'The URL must satisfy every callback-URL rule (§6.3), else 400 invalid_callback_url naming the rule. ' +
          'Omitted or empty eventTypes = all subscribable types; omitted ordering = none. Answers the subscription ' +
          'with its active publicKey.',
        body: createSubscriptionBody,
        response: { 201: subscription, ...errorResponses(400, 401, 409, 429) },
      },
    },
    async (request, reply) => {
      const integratorId = integratorOf(request);
      const { url, eventTypes, description, ordering } = request.body;
      const href = await acceptedCallbackUrl(app.callbackUrls, url, integratorId);
      await checkSubscriptionQuota(app, integratorId);
      await takeHourlyQuota(app, integratorId, 'subscription_creates');
      const id = keyedId(request, 'subscription');
      const created = await repo.create(
        {
          _id: id,
          integratorId,
          url: href,
          eventTypes: storedEventTypes(eventTypes),
          description: description ?? null,
          ordering: ordering ?? 'none',
        },
        newSigningKey(app.vault, id),
      );
      // The key's subscription, made by an earlier use of the key whose kept answer has expired, and deleted since.
      if (created.subscription.deletedAt !== null)
        throw conflict('the subscription this Idempotency-Key created was deleted; send a new key to create another');
      return await reply
        .code(201)
        .header('location', `${PATH}/${id}`)
        .send(subscriptionView(created.subscription, created.keys));
    },
  );

  app.get(
    PATH,
    {
      schema: {
        tags,
        summary: 'List subscriptions, newest first',
        description: 'Keyset-paged like the events listing; a cursor is valid only with the filters it was issued for.',
        querystring: listSubscriptionsQuery,
        response: { 200: subscriptionPage, ...errorResponses(400, 401) },
      },
    },
    async (request) => {
      const integratorId = integratorOf(request);
      const { cursor, limit, ...filters } = request.query;
      // The integrator is bound too, so a cursor leaked to another integrator is refused, not reinterpreted.
      const binding = { integratorId, ...filters };
      const position = cursor === undefined ? null : app.cursors.decode(CURSOR_SCOPE, cursor, binding);
      const { page, next } = keysetPage(await repo.list(integratorId, filters, position, limit + 1), limit);
      const keys = await repo.listKeys(page);
      return {
        subscriptions: subscriptionViews(page, keys),
        nextCursor: next && app.cursors.encode(CURSOR_SCOPE, next, binding),
      };
    },
  );

  app.get(
    `${PATH}/:subscription_id`,
    {
      schema: {
        tags,
        summary: 'A subscription with its newest signing keys',
        params: subscriptionParams,
        response: { 200: subscription, ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => {
      const found = await repo.findLive(integratorOf(request), request.params.subscription_id);
      if (!found) throw notFound();
      return await view(found);
    },
  );

  app.patch(
    `${PATH}/:subscription_id`,
    {
      schema: {
        tags,
        summary: 'Change url, eventTypes, description, status or ordering',
        description:
          'At least one field. A new url is checked against every callback-URL rule again. status disabled stops new ' +
          'deliveries; scheduled attempts of existing ones end as cancelled (subscription_disabled). A new ordering ' +
          'applies to deliveries ingested after the change; those in flight finish in the mode they were created in.',
        params: subscriptionParams,
        body: updateSubscriptionBody,
        response: { 200: subscription, ...errorResponses(400, 401, 404, 409) },
      },
    },
    async (request) => {
      const integratorId = integratorOf(request);
      const id = request.params.subscription_id;
      const found = await repo.findLive(integratorId, id);
      if (!found) throw notFound();
      const { url, eventTypes, description, status, ordering } = request.body;
      // A paused subscription holds deliveries: only /resume releases them (docs/subscriptions.md).
      if (status !== undefined && found.status === 'paused')
        throw conflict('the subscription is paused: POST …/resume first, then change its status');
      const changes: SubscriptionChanges = {};
      if (url !== undefined) changes.url = await acceptedCallbackUrl(app.callbackUrls, url, integratorId);
      if (eventTypes !== undefined) changes.eventTypes = storedEventTypes(eventTypes);
      if (description !== undefined) changes.description = description;
      if (status !== undefined) changes.status = status;
      if (ordering !== undefined) changes.ordering = ordering;
      const updated = await repo.update(integratorId, id, changes);
      if (!updated) throw notFound(); // deleted meanwhile
      return await view(updated);
    },
  );

  app.delete(
    `${PATH}/:subscription_id`,
    {
      schema: {
        tags,
        summary: 'Delete a subscription',
        description:
          'It is gone at once (404 everywhere). Its pending deliveries end as cancelled (subscription_deleted) ' +
          'without further requests; delivery history stays listed.',
        params: subscriptionParams,
        response: { 204: z.null(), ...errorResponses(400, 401, 404) },
      },
    },
    async (request, reply) => {
      const id = request.params.subscription_id;
      const integratorId = integratorOf(request);
      if (!(await repo.softDelete(integratorId, id))) throw notFound();
      try {
        await app.deliveryService.cancelPending({ integratorId, _id: id });
      } catch (err) {
        // The deletion stands: each remaining attempt finds the subscription deleted and cancels its delivery.
        request.log.error({ err, subscriptionId: id }, 'cancelling pending deliveries of a deleted subscription');
      }
      return await reply.code(204).send(null);
    },
  );

  app.post(
    `${PATH}/:subscription_id/rotate-key`,
    {
      schema: {
        tags,
        summary: 'Replace the active signing key',
        description:
          'A new P-256 key (new keyId and publicKey) signs every attempt from now on. Earlier keys stay listed as ' +
          'inactive with their keyId and publicKey (the newest in `keys`, all on GET …/keys), so deliveries signed ' +
          'before the rotation still verify.',
        params: subscriptionParams,
        response: { 201: subscription, ...errorResponses(400, 401, 404, 429) },
      },
    },
    async (request, reply) => {
      const found = await repo.findLive(integratorOf(request), request.params.subscription_id);
      if (!found) throw notFound();
      await takeHourlyQuota(app, found.integratorId, 'key_rotations');
      const key = newSigningKey(app.vault, found._id, keyedId(request, `key:${found._id}`));
      const rotated = await repo.rotateKey(found, key);
      if (!rotated) throw notFound(); // deleted meanwhile
      return await reply.code(201).send(await view(rotated));
    },
  );
};
