import type { FastifyInstance } from 'fastify';
import { healthRoutes } from './health.js';
import { adminIntegratorRoutes } from './admin-integrators.js';
import { credentialRoutes } from './credentials.js';
import { adminEventRoutes } from './admin-events.js';
import { adminDeliveryRoutes } from './admin-deliveries.js';
import { eventRoutes } from './events.js';
import { deliveryRoutes } from './deliveries.js';
import { subscriptionTestRoutes } from './subscription-test.js';
import { subscriptionRoutes } from './subscriptions.js';

/** Every route plugin, registered after the external and app plugins. */
export async function registerRoutes(app: FastifyInstance): Promise<void> {
  await app.register(healthRoutes);
  await app.register(adminIntegratorRoutes);
  await app.register(credentialRoutes);
  await app.register(adminEventRoutes);
  await app.register(adminDeliveryRoutes);
  await app.register(eventRoutes);
  await app.register(subscriptionTestRoutes);
  await app.register(deliveryRoutes);
  await app.register(subscriptionRoutes);
}
