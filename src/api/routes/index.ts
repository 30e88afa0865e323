import type { FastifyInstance } from 'fastify';
import { healthRoutes } from './health.js';

/** Every route plugin, registered after the external and app plugins. */
export async function registerRoutes(app: FastifyInstance): Promise<void> {
  await app.register(healthRoutes);
}
