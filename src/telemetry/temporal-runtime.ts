import { DefaultLogger, Runtime, type Logger as TemporalLogger, type LogLevel } from '@temporalio/worker';
import type { Config } from '../config.js';
import { freeLoopbackPort, portTakenError } from './metrics-server.js';
import { withDeliveryIds } from './temporal-logger.js';

const SDK_METRICS_HOST = '127.0.0.1';
let installedMetricsUrl: string | null = null;

/** The scrape address of the SDK exporter this process installed, or null (none, or `off`). */
export const temporalMetricsUrl = (): string | null => installedMetricsUrl;

/**
 * Installs the Temporal SDK runtime once per process, before any worker connection: its Prometheus exporter on loopback
 * at HERALD_TEMPORAL_METRICS_PORT (none when `off`). Its lines about a delivery carry the delivery's ids, below `level`
 * dropped. `forwardCoreLogs`: the SDK's Rust core writes its lines (e.g. `[TMPRL1104]`) into the same logger at `level`
 * and above, not to stderr; only the worker process (src/process/worker.ts) asks for it, since a forwarding runtime
 * kept in-process test stacks from exiting (docs/operations-metrics.md, "Logs").
 */
export async function installTemporalRuntime(
  config: Pick<Config, 'HERALD_TEMPORAL_METRICS_PORT'>,
  logger: TemporalLogger = new DefaultLogger('WARN'),
  options: { level?: LogLevel; forwardCoreLogs?: boolean } = {},
): Promise<void> {
  const setting = config.HERALD_TEMPORAL_METRICS_PORT;
  // The SDK binds the address it is given and never reports the port it got, so `0` is resolved here: the kernel
  // picks a free loopback port, released just before the SDK binds it. Workers on one host then need no setting.
  const port = setting === 0 ? await freeLoopbackPort(SDK_METRICS_HOST) : setting;
  const bindAddress = `${SDK_METRICS_HOST}:${port}`;
  try {
    Runtime.install({
      logger: withDeliveryIds(logger, options.level),
      telemetryOptions: {
        ...(port === null ? {} : { metrics: { prometheus: { bindAddress } } }),
        ...(options.forwardCoreLogs
          ? { logging: { filter: { core: options.level ?? 'WARN', other: 'ERROR' }, forward: {} } }
          : {}),
      },
    });
  } catch (err) {
    throw portTakenError('HERALD_TEMPORAL_METRICS_PORT', bindAddress, err);
  }
  installedMetricsUrl = port === null ? null : `http://${bindAddress}/metrics`;
}
