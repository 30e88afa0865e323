import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { keysetPage } from '../../store/cursor.js';
import { eventPageJson } from '../../domain/event-record.js';
import { integratorOf } from '../request-context.js';
import { sendJsonText } from '../send-json.js';
import { errorResponses } from '../errors.js';
import { listEventsQuery, listEventsResponse } from '../schemas/events.js';

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
};
