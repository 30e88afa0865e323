import { createHeraldMetrics, disabledMetrics, type HeraldMetrics } from '../../src/telemetry/metrics.js';

/**
 * Real metrics that can be switched off between benchmark rounds: off, every call goes to the no-op metrics a
 * process gets with its metrics port `off` (the instrumentation calls remain; prom-client's work does not).
 */
export function switchableMetrics(): { metrics: HeraldMetrics; set(on: boolean): void } {
  const real = createHeraldMetrics();
  let active: HeraldMetrics = real;
  const forward =
    <K extends Exclude<keyof HeraldMetrics, 'registry'>>(name: K) =>
    (...args: Parameters<HeraldMetrics[K]>): void =>
      (active[name] as (...a: Parameters<HeraldMetrics[K]>) => void)(...args);
  return {
    metrics: {
      registry: real.registry,
      eventIngested: forward('eventIngested'),
      deliveriesCreated: forward('deliveriesCreated'),
      deliveryFinished: forward('deliveryFinished'),
      attemptMade: forward('attemptMade'),
      deliveryLag: forward('deliveryLag'),
      eventWaited: forward('eventWaited'),
      authFailed: forward('authFailed'),
      httpRequest: forward('httpRequest'),
      attemptWaited: forward('attemptWaited'),
      watchWaiting: (count) => real.watchWaiting(count),
    },
    set(on) {
      active = on ? real : disabledMetrics;
    },
  };
}
