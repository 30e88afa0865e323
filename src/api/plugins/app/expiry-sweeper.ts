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
    const timer = setInterval(() => {
      app.store.expiring.sweepExpired().catch((err: unknown) => app.log.warn({ err }, 'sweeping expired documents'));
    }, SWEEP_INTERVAL_MS);
    timer.unref();
    app.addHook('onClose', async () => clearInterval(timer));
  },
  { name: 'expiry-sweeper', dependencies: ['store'] },
);
