import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { createFanOut, type FanOut } from '../../../delivery/fan-out.js';
import { traceFanOut } from '../../../telemetry/instrument.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** Hands stored events to delivery (src/delivery/fan-out.ts). */
    fanOut: FanOut;
  }
}

export const fanOutPlugin = fp(
  async (app: FastifyInstance) => {
    const fanOut = createFanOut({
      store: app.store,
      client: app.temporal.client,
      taskQueue: app.config.TEMPORAL_TASK_QUEUE,
      eagerClient: () => app.apiWorker?.eagerClient() ?? null,
    });
    app.decorate('fanOut', traceFanOut(fanOut));
  },
  { name: 'fan-out', dependencies: ['store', 'api-worker'] },
);
