import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { historyItemJson, newEventDoc } from '../../domain/event-record.js';
import { sendJsonText } from '../send-json.js';
import { badRequest, conflict, errorResponses } from '../errors.js';
import { eventHistoryItem, publishEventBody } from '../schemas/events.js';

const adminSecurity = [{ adminToken: [] }];

/**
 * The platform publishes lifecycle events here (admin bearer token). Stored once per id, then handed to the
 * fan-out; see docs/events.md for the contract and README "Event hand-off to delivery" for the crash story.
 */
export const adminEventRoutes: FastifyPluginAsyncZod = async (app) => {
  app.post(
    '/internal/v1/events',
    {
      schema: {
        tags: ['internal: events'],
        security: adminSecurity,
        summary: 'Publish a lifecycle event (idempotent on id)',
        description:
          '201 with the stored event the first time; 200 with the stored event when the same event (same id and ' +
          'content) is sent again; 409 when the id exists with other content. Bodies over 256 KiB → 413.',
        body: publishEventBody,
        response: { 200: eventHistoryItem, 201: eventHistoryItem, ...errorResponses(400, 401, 409, 413) },
      },
    },
    async (request, reply) => {
      const { occurredAt, ...fields } = request.body;
      // Validate everything before writing anything.
      if (!(await app.store.integrators.exists(fields.integratorId))) {
        throw badRequest('body.integratorId: no registered integrator has this id');
      }
      const doc = newEventDoc({ ...fields, occurredAt: new Date(occurredAt) });
      const { created, event } = await app.store.events.insertOnce(doc);
      if (created) app.metrics.eventIngested();
      if (!created && (event.body !== doc.body || event.integratorId !== doc.integratorId)) {
        throw conflict(`an event with id ${doc._id} already exists with different content`);
      }
      // A re-submission also repairs a hand-off that a crash interrupted; handOff is idempotent throughout.
      if (event.fanoutAt === null) await app.fanOut.handOff(event);
      return await sendJsonText(reply, created ? 201 : 200, historyItemJson(event));
    },
  );
};
