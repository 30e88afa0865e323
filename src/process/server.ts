import { buildApp } from './app.js';
import { ConfigError, loadConfig } from '../config.js';
import { setupTracing } from '../telemetry/tracing.js';

/**
 * Starts the HTTP API (and the admin API's own listener with HERALD_ADMIN_PORT); SIGINT/SIGTERM stop accepting on
 * both, drain in-flight requests and close connections.
 */
async function main(): Promise<void> {
  const config = loadConfig();
  const tracing = setupTracing({ endpoint: config.OTEL_EXPORTER_OTLP_ENDPOINT, serviceName: 'herald-api' });
  const app = await buildApp({ config });
  if (tracing) app.addHook('onClose', () => tracing.shutdown());
  let closing = false;
  const shutdown = (signal: string): void => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, 'shutting down');
    const force = setTimeout(() => process.exit(1), 10_000).unref();
    app.close().then(
      () => {
        clearTimeout(force);
        process.exit(0);
      },
      (err: unknown) => {
        app.log.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.once('SIGINT', shutdown);
  process.once('SIGTERM', shutdown);
  await app.listen({ host: config.HERALD_HOST, port: config.HERALD_PORT });
  await app.listenAdmin();
}

main().catch((err: unknown) => {
  console.error(err instanceof ConfigError ? err.message : err);
  process.exit(1);
});
