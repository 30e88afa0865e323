import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { historyItemJson } from '../../domain/event-record.js';
import { NULL_JSON } from '../../domain/json-text.js';
import { bodyMemberText } from '../json-body.js';
import { sendJsonText } from '../send-json.js';
import { badRequest, conflict, errorResponses } from '../errors.js';
import { createIngestGate, gated } from '../ingest-gate.js';
import { eventHistoryItem, publishEventBody, type PublishEventBody } from '../schemas/events.js';

/**
 * The platform publishes lifecycle events here (admin bearer token): the delivery service takes each in
 * (src/delivery/ingest.ts); see docs/events.md for the contract and README "Event hand-off to delivery" for the
 * crash story.
 */
export const adminEventRoutes: FastifyPluginAsyncZod = async (app) => {
  const gate = createIngestGate({
    concurrency: app.config.HERALD_INGEST_CONCURRENCY,
    perKeyConcurrency: app.config.HERALD_INGEST_CONCURRENCY_PER_INTEGRATOR,
    queue: app.config.HERALD_INGEST_QUEUE,
    maxWaitMs: app.config.HERALD_INGEST_WAIT_MS,
  });
  app.post(
    '/internal/v1/events',
    {
      schema: {
        tags: ['internal: events'],
        summary: 'Publish a lifecycle event (idempotent on id)',
        description:
          '201 with the stored event the first time; 200 with the stored event when the same event (same id and ' +
          'content) is sent again; 409 when the id exists with other content. `data` is kept as the exact text ' +
          'sent. Bodies over 256 KiB → 413; not UTF-8, nested over 64 levels or a number beyond ±1.8e308 → 400 ' +
          'naming the JSON path. 503 `overloaded` with Retry-After when too many ingests are in flight: nothing ' +
          'was stored; send it again after that delay.',
        body: publishEventBody,
        response: { 200: eventHistoryItem, 201: eventHistoryItem, ...errorResponses(400, 401, 409, 413, 503) },
      },
    },
    // Admitted first, before anything is read or written, integrators in turn (docs/events.md, "Load shedding").
    gated(
      gate,
      (request: FastifyRequest<{ Body: PublishEventBody }>) => request.body.integratorId,
      async (request, reply: FastifyReply) => {
        const { occurredAt, ...fields } = request.body;
        // `data` as the producer wrote it (README "Payload fidelity"): the parsed value only passed validation.
        const data = bodyMemberText(request, 'data') ?? NULL_JSON;
        const ingested = await app.deliveryService.ingest(
          { ...fields, occurredAt: new Date(occurredAt), data },
          request.log,
        );
        if (!ingested.ok && ingested.reason === 'unknown_integrator') {
          throw badRequest('body.integratorId: no registered integrator has this id');
        }
        if (!ingested.ok) throw conflict(`an event with id ${fields.id} already exists with different content`);
        const { created, event } = ingested;
        if (created) {
          app.metrics.eventIngested();
          app.metrics.deliveriesCreated(ingested.deliveries);
        }
        return await sendJsonText(reply, created ? 201 : 200, historyItemJson(event));
      },
    ),
  );
};
