import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { createDeliveryService, type DeliveryService } from '../../../delivery/index.js';
import { traceFanOut } from '../../../telemetry/instrument.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** Every workflow the routes start, signal, update or query (src/delivery/service.ts). */
    deliveryService: DeliveryService;
  }
}

/** The delivery service, built once over the repositories and the Temporal client; its hand-off is traced. */
export const deliveryServicePlugin = fp(
  async (app: FastifyInstance) => {
    const service = createDeliveryService({
      store: app.store,
      client: app.temporal.client,
      config: app.config,
      // The API's in-process worker (registered next) serves eager starts once it runs.
      eagerClient: () => app.apiWorker?.eagerClient() ?? null,
      wrapFanOut: traceFanOut,
    });
    app.decorate('deliveryService', service);
  },
  { name: 'delivery-service', dependencies: ['store'] },
);
