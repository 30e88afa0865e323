import { Client, Connection } from '@temporalio/client';
import type { Config } from '../config.js';
import { temporalConnectionOptions, type TemporalConnectionConfig } from './connection.js';
import { tracingClientInterceptors } from '../telemetry/temporal-tracing.js';
import { withTimeout } from '../util/with-timeout.js';

export interface Temporal {
  readonly connection: Connection;
  readonly client: Client;
  /** True when the server answers within `timeoutMs`. */
  ping(timeoutMs?: number): Promise<boolean>;
  /** Closes the connection once no ping is in flight. */
  close(): Promise<void>;
}

/** A lazy connection: the API starts without Temporal and reports not-ready until it answers. */
export function createTemporal(config: TemporalConnectionConfig & Pick<Config, 'TEMPORAL_NAMESPACE'>): Temporal {
  const connection = Connection.lazy({ ...temporalConnectionOptions(config), connectTimeout: '3s' });
  const interceptors = tracingClientInterceptors();
  const client = new Client({
    connection,
    namespace: config.TEMPORAL_NAMESPACE,
    ...(interceptors ? { interceptors } : {}),
  });
  // The client's retry interceptor schedules retries on timers; closing the channel under one of them throws
  // "Channel has been shut down" as an uncaught exception. So close waits for the pings still in flight.
  const inFlight = new Set<Promise<unknown>>();

  return {
    connection,
    client,
    async ping(timeoutMs = 2_000) {
      const call = connection.withDeadline(Date.now() + timeoutMs, () => connection.workflowService.getSystemInfo({}));
      inFlight.add(call);
      const settled = call.then(
        () => true,
        () => false,
      );
      void settled.finally(() => inFlight.delete(call));
      return await withTimeout(settled, timeoutMs + 500, false);
    },
    async close() {
      await Promise.allSettled([...inFlight]);
      await connection.close();
    },
  };
}
