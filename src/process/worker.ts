// The worker process: the delivery worker (src/process/worker-runtime.ts).
import { fileURLToPath } from 'node:url';
import { ConfigError, loadConfig } from '../config.js';
import { pino } from 'pino';
import { createWorkerRuntime } from './worker-runtime.js';
import { applyWorkerMemorySettings } from './worker-memory.js';
import { installTemporalRuntime } from '../telemetry/temporal-runtime.js';
import { temporalLogLevel, temporalPinoLogger } from '../telemetry/temporal-pino-logger.js';
import { setupTracing } from '../telemetry/tracing.js';

async function main(): Promise<void> {
  const config = loadConfig();
  // Before the workflow threads exist: the growing factor reaches the isolates already running too, the young
  // generation's bound only those created after it (the workflow threads').
  const memory = applyWorkerMemorySettings(config);
  const tracing = setupTracing({ endpoint: config.OTEL_EXPORTER_OTLP_ENDPOINT, serviceName: 'herald-worker' });
  // The SDK's lines, its Rust core's included, as JSON lines with the delivery's ids (docs/operations-metrics.md).
  const logger = pino({ level: config.LOG_LEVEL });
  const level = temporalLogLevel(config.LOG_LEVEL);
  await installTemporalRuntime(config, temporalPinoLogger(logger), { level, forwardCoreLogs: true });
  // glibc reads these only at process start: the log says what this process runs with (Dockerfile, start:worker).
  const malloc = Object.fromEntries(Object.entries(process.env).filter(([name]) => name.startsWith('MALLOC_')));
  logger.info({ ...memory, malloc }, 'worker memory settings');
  const runtime = await createWorkerRuntime(config, { logger });
  // Worker.run() handles SIGINT/SIGTERM itself: it stops polling and lets running attempts finish for
  // HERALD_WORKER_SHUTDOWN_GRACE_SECONDS (src/temporal/herald-worker.ts); then every connection is closed.
  await runtime.run();
  await tracing?.shutdown(); // flushes the spans still batched
  process.exit(0);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  main().catch((err: unknown) => {
    console.error(err instanceof ConfigError ? err.message : err);
    process.exit(1);
  });
}
