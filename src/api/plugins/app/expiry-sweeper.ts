import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';

/** How often each API instance deletes expired replay digests and quota windows. */
export const SWEEP_INTERVAL_MS = 60_000;

/**
 * Deletes expired replay digests and quota windows off the hot path (FerretDB has no TTL expiry; on a real MongoDB
 * the TTL index does it too). Nothing depends on the sweep for correctness: expired documents are never trusted.
 */
export const expirySweeperPlugin = fp(
  async (app: FastifyInstance) => {
    let closing = false;
    const timer = setInterval(() => {
      app.store.expiring.sweepExpired().catch((err: unknown) => {
        if (!closing) app.log.warn({ err }, 'sweeping expired documents');
      });
    }, SWEEP_INTERVAL_MS);
    timer.unref();
    // Registered after the connections plugin's hook, so it runs first: a sweep cut short by the close is not news.
    app.addHook('onClose', async () => {
      closing = true;
      clearInterval(timer);
    });
  },
  { name: 'expiry-sweeper', dependencies: ['store'] },
);
