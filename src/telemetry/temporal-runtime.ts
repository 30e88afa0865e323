import { DefaultLogger, Runtime, type Logger as TemporalLogger } from '@temporalio/worker';
import type { Config } from '../config.js';
import { withDeliveryIds } from './temporal-logger.js';

/** The Temporal SDK exporter's address: loopback only, it is proxied onto the worker's own /metrics. */
export const temporalMetricsAddress = (port: number): string => `127.0.0.1:${port}`;

/**
 * Installs the Temporal SDK runtime once per process, before any worker connection: its Prometheus exporter on
 * HERALD_TEMPORAL_METRICS_PORT (none when `off`). Its lines about a delivery carry the delivery's ids.
 */
export function installTemporalRuntime(
  config: Pick<Config, 'HERALD_TEMPORAL_METRICS_PORT'>,
  logger: TemporalLogger = new DefaultLogger('WARN'),
): void {
  const port = config.HERALD_TEMPORAL_METRICS_PORT;
  Runtime.install({
    logger: withDeliveryIds(logger),
    ...(port === null
      ? {}
      : { telemetryOptions: { metrics: { prometheus: { bindAddress: temporalMetricsAddress(port) } } } }),
  });
}
