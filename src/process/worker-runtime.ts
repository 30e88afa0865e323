import { NativeConnection, type Worker } from '@temporalio/worker';
import { pino, type Logger } from 'pino';
import { prometheusContentType } from 'prom-client';
import { ConfigError, type Config } from '../config.js';
import { createKeyVault } from '../crypto/key-encryption.js';
import { loadMasterKey } from '../crypto/master-key.js';
import { WEBHOOK_USER_AGENT } from '../crypto/webhook-signature.js';
import { createDeliveryService } from '../delivery/index.js';
import { createWebhookHttpClient } from '../net/http-client.js';
import { checkEgressExemptions } from '../net/egress-exemptions.js';
import { callbackUrlPolicyFromConfig } from '../net/policy-from-config.js';
import { createStore, listingBoundsOf } from '../store/index.js';
import { ensureIndexes } from '../store/indexes.js';
import { createMongo, type Mongo, type MongoOptions } from '../store/mongo.js';
import { createTemporal } from '../temporal/client.js';
import { temporalConnectionOptions } from '../temporal/connection.js';
import { assertSearchAttributes } from '../temporal/namespace.js';
import { ensureRetentionSchedule } from '../temporal/retention-schedule.js';
import { createHeraldWorker } from '../temporal/herald-worker.js';
import { createDeliveryActivities } from '../temporal/worker-activities.js';
import { registerBacklogGauges } from '../telemetry/backlog.js';
import { createHeraldMetrics, disabledMetrics, type HeraldMetrics } from '../telemetry/metrics.js';
import { scrapeText, startMetricsServer, type MetricsServer } from '../telemetry/metrics-server.js';
import { temporalMetricsUrl } from '../telemetry/temporal-runtime.js';

export interface WorkerRuntime {
  readonly worker: Worker;
  readonly metrics: HeraldMetrics;
  /** The worker's scrape address, or null (HERALD_WORKER_METRICS_PORT=off). */
  readonly metricsUrl: string | null;
  readonly mongo: Mongo;
  /** Runs until shutdown (SIGINT/SIGTERM are handled by the worker), then closes every connection. */
  run(): Promise<void>;
  shutdown(): void;
}

/**
 * Everything a worker process runs: the delivery worker (activities over MongoDB, the key vault and the pinned
 * HTTP client).
 */
export async function createWorkerRuntime(
  config: Config,
  options: {
    logger?: Pick<Logger, 'info' | 'warn' | 'error'>;
    workflowBundlePath?: string;
    mongoOptions?: MongoOptions;
    /** Default: a fresh registry, or none with HERALD_WORKER_METRICS_PORT=off. */
    metrics?: HeraldMetrics;
  } = {},
): Promise<WorkerRuntime> {
  const log = options.logger ?? pino({ level: config.LOG_LEVEL });
  const metricsPort = config.HERALD_WORKER_METRICS_PORT;
  const metrics = options.metrics ?? (metricsPort === null ? disabledMetrics : createHeraldMetrics());
  const master = loadMasterKey(config);
  // A per-process key could never open the keys the API process sealed: every delivery would fail.
  if (master.source === 'ephemeral')
    throw new ConfigError(
      'Invalid configuration:\n  HERALD_MASTER_KEY: the worker needs HERALD_MASTER_KEY or HERALD_MASTER_KEY_FILE, ' +
        'the same as the API, to open the signing keys the API sealed',
    );
  const egressWarning = checkEgressExemptions(config);
  if (egressWarning) log.warn(egressWarning);
  const mongo = createMongo(config, options.mongoOptions);
  const http = createWebhookHttpClient({ policy: callbackUrlPolicyFromConfig(config), userAgent: WEBHOOK_USER_AGENT });
  const temporal = createTemporal(config);
  let connection: NativeConnection | undefined;
  let metricsServer: MetricsServer | undefined;
  const closeAll = async (): Promise<void> => {
    await Promise.allSettled([
      http.close(),
      temporal.close(),
      connection?.close(),
      mongo.client.close(),
      metricsServer?.close(),
    ]);
  };
  let worker: Worker;
  const store = createStore(mongo.db, {
    listingLayout: config.HERALD_LISTING_LAYOUT,
    listingBounds: listingBoundsOf(config),
  });
  try {
    await mongo.client.connect();
    await ensureIndexes(mongo.db);
    await assertSearchAttributes(temporal.connection, config.TEMPORAL_NAMESPACE);
    connection = await NativeConnection.connect(temporalConnectionOptions(config));
    worker = await createHeraldWorker({
      config,
      connection,
      activities: createDeliveryActivities(config, {
        store,
        vault: createKeyVault(master.key),
        http,
        delivery: createDeliveryService({ store, client: temporal.client, config }),
        metrics,
        log,
        slots: config.HERALD_WORKER_MAX_ACTIVITIES,
      }),
      ...(options.workflowBundlePath ? { workflowBundlePath: options.workflowBundlePath } : {}),
    });
    // A missing schedule must not stop deliveries: a server without schedules (the time-skipping test server) or a
    // refused update leaves the purge to `herald retention run` and says so.
    await ensureRetentionSchedule(temporal.client, config).catch((err: unknown) =>
      log.warn({ err }, 'the retention schedule could not be created or updated (docs/retention.md)'),
    );
    if (metricsPort !== null && metrics.registry) {
      const registry = metrics.registry;
      registerBacklogGauges(registry, mongo.db);
      // The exporter this process's runtime bound (installTemporalRuntime), wherever its port came from.
      const sdkUrl = temporalMetricsUrl();
      metricsServer = await startMetricsServer({
        setting: 'HERALD_WORKER_METRICS_PORT',
        host: config.HERALD_METRICS_HOST,
        port: metricsPort,
        contentType: prometheusContentType,
        collect: async () => (await registry.metrics()) + (sdkUrl ? await scrapeText(sdkUrl) : ''),
        onError: (err) => log.error({ err }, 'metrics collection failed'),
      });
    }
  } catch (err) {
    await closeAll(); // a failed start-up leaves no connection open
    throw err;
  }

  return {
    worker,
    mongo,
    metrics,
    metricsUrl: metricsServer?.url ?? null,
    async run() {
      try {
        await worker.run();
      } finally {
        await closeAll();
      }
    },
    shutdown() {
      worker.shutdown();
    },
  };
}
