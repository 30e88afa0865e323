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
import { subscriptionPauseRoutes } from './subscription-pause.js';
import { subscriptionKeyRoutes } from './subscription-keys.js';
import { campaignRoutes } from './campaigns.js';
import { deliveryControlRoutes } from './delivery-control.js';
import { subscriptionStatsRoutes } from './subscription-stats.js';
import { adminPortalRoutes, portalLinkRoutes } from './portal-links.js';
import { portalPageRoutes } from './portal-pages.js';
import { adminScope } from '../scopes/admin-scope.js';
import { integratorScope } from '../scopes/integrator-scope.js';

/**
 * Every route plugin, registered after the external and app plugins. A route is guarded by the scope it is
 * registered in, never by its URL: health is public; the admin scope exists only with HERALD_ADMIN_TOKEN.
 */
export async function registerRoutes(app: FastifyInstance): Promise<void> {
  await app.register(healthRoutes);
  // The portal's page and session: public (the session is its own credential); its data calls are integrator routes.
  await app.register(portalPageRoutes);
  const token = app.config.HERALD_ADMIN_TOKEN;
  if (token !== undefined)
    await app.register(adminScope, {
      token,
      routes: [adminIntegratorRoutes, adminEventRoutes, adminDeliveryRoutes, adminPortalRoutes],
    });
  await app.register(integratorScope, {
    routes: [
      credentialRoutes,
      eventRoutes,
      subscriptionTestRoutes,
      deliveryRoutes,
      subscriptionRoutes,
      subscriptionPauseRoutes,
      subscriptionKeyRoutes,
      deliveryControlRoutes,
      subscriptionStatsRoutes,
      campaignRoutes,
      portalLinkRoutes,
    ],
  });
}
