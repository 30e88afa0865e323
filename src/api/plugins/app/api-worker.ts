import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { startApiWorker, type ApiWorker } from '../../../temporal/api-worker.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** The in-process delivery worker that eager starts run on (src/temporal/api-worker.ts); null with 0 slots. */
    apiWorker: ApiWorker | null;
  }
}

/** HERALD_API_WORKER_SLOTS > 0: the API hosts a small delivery worker, started in the background, closed first. */
export const apiWorkerPlugin = fp(
  async (app: FastifyInstance) => {
    if (app.config.HERALD_API_WORKER_SLOTS === 0) {
      app.decorate('apiWorker', null);
      return;
    }
    const worker = startApiWorker(app.config, {
      store: app.store,
      vault: app.vault,
      delivery: app.deliveryService,
      metrics: app.metrics,
      log: app.log,
    });
    app.decorate('apiWorker', worker);
    // Registered after the connections: closed before MongoDB and Temporal are (onClose runs last-in, first-out).
    app.addHook('onClose', () => worker.close());
  },
  { name: 'api-worker', dependencies: ['store', 'vault', 'telemetry', 'delivery-service'] },
);
