import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { notFound } from '../../errors.js';

declare module 'fastify' {
  interface FastifyInstance {
    /**
     * With HERALD_ADMIN_PORT: starts the admin API's own listener and answers its URL (src/process/server.ts calls it
     * after `listen`). Without: answers null and starts nothing (the admin API is served with the rest).
     */
    listenAdmin: () => Promise<string | null>;
  }
  interface FastifyContextConfig {
    /** Set on every route of the admin scope (src/api/scopes/admin-scope.ts). */
    adminRoute?: boolean;
  }
}

/**
 * HERALD_ADMIN_PORT: the admin routes on a listener of their own, so the public one can be exposed whole. One app,
 * two HTTP servers: the second hands its requests to the same router (`app.routing`), so there is one set of
 * plugins, connections and caches. Each request must come through the listener of its route — an admin route via
 * the public one, or any other route via the admin one, is answered 404 before any guard runs (so the public
 * listener does not even reveal that an admin API exists).
 */
export const adminListenerPlugin = fp(
  async (app: FastifyInstance) => {
    const port = app.config.HERALD_ADMIN_PORT;
    if (port === undefined) {
      app.decorate('listenAdmin', async () => null);
      return;
    }
    const viaAdmin = new WeakSet<IncomingMessage>();
    const server = createServer((req, res) => {
      viaAdmin.add(req);
      app.routing(req, res);
    });
    // The public server's limits (Fastify set them from its options) hold for this one too.
    server.keepAliveTimeout = app.server.keepAliveTimeout;
    server.headersTimeout = app.server.headersTimeout;
    server.requestTimeout = app.server.requestTimeout;
    server.setTimeout(app.server.timeout);

    app.addHook('onRequest', async (request, reply) => {
      // `config` is absent on Fastify's own fallback contexts (an unroutable URL): no admin route then.
      const adminRoute = request.routeOptions.config?.adminRoute === true;
      // Answered here, not thrown: routes registered before the error handler (/openapi.json) would not shape it.
      if (adminRoute !== viaAdmin.has(request.raw)) return await reply.code(404).send(notFound().toBody());
    });

    app.decorate('listenAdmin', async () => {
      const host = app.config.HERALD_ADMIN_HOST;
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, host, () => {
          server.off('error', reject);
          resolve();
        });
      });
      const url = `http://${host.includes(':') ? `[${host}]` : host}:${(server.address() as AddressInfo).port}`;
      app.log.info({ url }, 'admin API listening');
      return url;
    });

    // Closing starts with the public listener: new requests are answered 503 from then on, on both (Fastify's
    // closing state); the admin listener stops accepting too and its connections are ended once requests are done.
    let closed: Promise<void> = Promise.resolve();
    app.addHook('preClose', async () => {
      if (!server.listening) return;
      closed = new Promise((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
    });
    app.addHook('onClose', async () => {
      server.closeAllConnections();
      await closed;
    });
  },
  { name: 'admin-listener', dependencies: ['connections', 'error-handler'] },
);
