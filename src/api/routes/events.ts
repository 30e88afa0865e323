import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { keysetPage } from '../../store/cursor.js';
import { eventPageJson, historyItemJson } from '../../domain/event-record.js';
import { isHeraldEventType } from '../../domain/event-types.js';
import { integratorOf } from '../request-context.js';
import { sendJsonText } from '../send-json.js';
import { errorResponses, notFound } from '../errors.js';
import { eventHistoryItem, listEventsQuery, listEventsResponse } from '../schemas/events.js';
import { uuid } from '../schemas/common.js';

/** Cursor scope of this listing: a cursor of another listing is refused. */
const CURSOR_SCOPE = 'events';

/** §4.1: the authenticated integrator's event history, newest first, keyset-paged. */
export const eventRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/v1/query/events',
    {
      schema: {
        tags: ['events'],
        summary: 'List lifecycle events, newest first',
        description:
          'Ordered by createdAt, then id, both descending. createdAfter/createdBefore are exclusive, compared exactly ' +
          'whatever their precision. webhook.test ' +
          'events are listed only with eventType=webhook.test. A cursor is valid only with the filters it was ' +
          'issued for; an unknown or repeated parameter is a 400.',
        querystring: listEventsQuery,
        response: { 200: listEventsResponse, ...errorResponses(400, 401, 503) },
      },
    },
    async (request, reply) => {
      const integratorId = integratorOf(request);
      const { cursor, limit, ...filters } = request.query;
      // The integrator is bound too, so a cursor that leaks to another integrator is refused, not reinterpreted.
      const binding = { integratorId, ...filters };
      const position = cursor === undefined ? undefined : app.cursors.decode(CURSOR_SCOPE, cursor, binding);
      const rows = await app.store.events.list(integratorId, filters, position, limit + 1);
      const { page, next } = keysetPage(rows, limit);
      const nextCursor = next && app.cursors.encode(CURSOR_SCOPE, next, binding);
      // Items are the stored delivery bodies plus createdAt (src/domain/event-record.ts), already JSON.
      return await sendJsonText(reply, 200, eventPageJson(page, nextCursor));
    },
  );

  app.get(
    '/v1/query/events/:event_id',
    {
      schema: {
        tags: ['events'],
        summary: 'One event of the history',
        description:
          'The event as the listing gives it (its data exactly as the producer sent it), webhook.test events ' +
          "included. Herald's own events (webhook.subscription_paused) and another integrator's: 404. An " +
          'extension of the interface (the portal shows an event by its id with it).',
        // Like §4.2's subscription ids: a malformed id names no event either.
        params: z.strictObject({
          event_id: z.string().meta({ format: 'uuid', description: 'the event id; not a uuid: 404' }),
        }),
        response: { 200: eventHistoryItem, ...errorResponses(401, 404) },
      },
    },
    async (request, reply) => {
      const id = uuid.safeParse(request.params.event_id);
      const event = id.success ? await app.store.events.findForIntegrator(integratorOf(request), id.data) : null;
      if (!event || isHeraldEventType(event.eventType)) throw notFound();
      return await sendJsonText(reply, 200, historyItemJson(event));
    },
  );
};
