// The delivery activities as every Herald worker builds them: the worker process (src/process/worker-runtime.ts) and
// the API's in-process worker for eager starts (src/temporal/api-worker.ts) run the same code over the same
// dependencies.
import { createActivities } from '../../activities/index.js';
import type { DeliveryPort } from '../../activities/delivery-port.js';
import { resendLimitsOf } from '../../activities/redelivery-gate.js';
import type { Config } from '../config.js';
import { retentionPolicyOf } from '../retention/purge.js';
import type { KeyVault } from '../crypto/key-encryption.js';
import { createAttemptGate, slotsPerIntegrator } from '../net/attempt-gate.js';
import type { WebhookHttpClient } from '../net/http-client.js';
import type { Store } from '../store/index.js';
import { createAttemptObserver } from '../telemetry/attempt-observer.js';
import { traceWebhookHttp } from '../telemetry/instrument.js';
import type { HeraldMetrics } from '../telemetry/metrics.js';

export interface DeliveryActivityDeps {
  readonly store: Store;
  readonly vault: KeyVault;
  readonly http: WebhookHttpClient;
  /** The process's delivery service (src/delivery/service.ts): every workflow the activities start or signal. */
  readonly delivery: DeliveryPort;
  readonly metrics: HeraldMetrics;
  readonly log: { info(obj: object, msg?: string): void; error(obj: object, msg?: string): void };
  /** Attempt slots of the worker that runs these activities: the integrator's share is a part of them. */
  readonly slots: number;
}

export function createDeliveryActivities(config: Config, deps: DeliveryActivityDeps) {
  const { store, log } = deps;
  const gate = createAttemptGate({
    slotsPerIntegrator: slotsPerIntegrator(deps.slots, config.HERALD_WORKER_INTEGRATOR_SHARE),
    slots: deps.slots,
  });
  deps.metrics.watchWaiting(() => gate.waiting());
  return createActivities({
    gate,
    store,
    vault: deps.vault,
    http: traceWebhookHttp(deps.http),
    logError: (message, fields) => log.error(fields, message),
    observer: createAttemptObserver({ metrics: deps.metrics, logger: log }),
    delivery: deps.delivery,
    healthPolicy: {
      pauseAfterMs: config.HERALD_HEALTH_PAUSE_AFTER_SECONDS * 1000,
      minFailures: config.HERALD_HEALTH_PAUSE_MIN_FAILURES,
    },
    retryAfterMaxSeconds: config.HERALD_RETRY_AFTER_MAX_SECONDS,
    resendLimits: resendLimitsOf(config),
    retention: retentionPolicyOf(config),
  });
}
