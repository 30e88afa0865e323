import { DefaultLogger, Runtime, type Logger as TemporalLogger, type LogLevel } from '@temporalio/worker';
import type { Config } from '../config.js';
import { withDeliveryIds } from './temporal-logger.js';

/** The Temporal SDK exporter's address: loopback only, it is proxied onto the worker's own /metrics. */
export const temporalMetricsAddress = (port: number): string => `127.0.0.1:${port}`;

/**
 * Installs the Temporal SDK runtime once per process, before any worker connection: its Prometheus exporter on
 * HERALD_TEMPORAL_METRICS_PORT (none when `off`). Its lines about a delivery carry the delivery's ids, below `level`
 * dropped. `forwardCoreLogs`: the SDK's Rust core writes its lines (e.g. `[TMPRL1104]`) into the same logger at
 * `level` and above, not to stderr; only the worker process (src/worker.ts) asks for it, since a forwarding runtime
 * kept in-process test stacks from exiting (docs/operations-metrics.md, "Logs").
 */
export function installTemporalRuntime(
  config: Pick<Config, 'HERALD_TEMPORAL_METRICS_PORT'>,
  logger: TemporalLogger = new DefaultLogger('WARN'),
  options: { level?: LogLevel; forwardCoreLogs?: boolean } = {},
): void {
  const port = config.HERALD_TEMPORAL_METRICS_PORT;
  Runtime.install({
    logger: withDeliveryIds(logger, options.level),
    telemetryOptions: {
      ...(port === null ? {} : { metrics: { prometheus: { bindAddress: temporalMetricsAddress(port) } } }),
      ...(options.forwardCoreLogs
        ? { logging: { filter: { core: options.level ?? 'WARN', other: 'ERROR' }, forward: {} } }
        : {}),
    },
  });
}
