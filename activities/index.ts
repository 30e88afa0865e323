import type { KeyVault } from '../src/crypto/key-encryption.js';
import type { WebhookHttpClient } from '../src/net/http-client.js';
import type { Store } from '../src/store/index.js';
import type { AttemptObserver } from '../src/telemetry/attempt-observer.js';
import { createAttemptDelivery, type LogError } from './attempt-delivery.js';
import { createPrepareRerun } from './prepare-rerun.js';
import { createRecoveryActivities, type RecoveryDeps } from './recovery.js';
import { createSigningKeyCache } from './signing-keys.js';
import { createSubscriptionCache } from './subscription-cache.js';
import { createAutoPause } from '../src/delivery/auto-pause.js';
import type { FanOut } from '../src/delivery/fan-out.js';
import { createEndpointHealth, type HealthPolicy } from './endpoint-health.js';
import { createReleasePage, type SignalRelease } from './release-page.js';
import { createProbeEndpoint } from './probe-endpoint.js';
import { createStartProbe } from '../src/delivery/endpoint-probe.js';
import { startRelease } from '../src/delivery/release-held.js';

export interface ActivityDeps {
  readonly store: Store;
  readonly vault: KeyVault;
  readonly http: WebhookHttpClient;
  readonly now?: () => Date;
  /** Tests calling activities outside a worker give the activity's attempt number (default: Temporal's). */
  readonly activityAttempt?: () => number;
  /** Error-level log of faults that need an operator (default: the activity context's logger). */
  readonly logError?: LogError;
  /** Metrics and log lines about each attempt (src/telemetry/attempt-observer.ts); none when absent. */
  readonly observer?: AttemptObserver;
  /** Starts the deliveries of the operational event `webhook.subscription_paused`; none (event stored only) when absent. */
  readonly fanOut?: FanOut;
  /** When a failing endpoint is paused; never when absent. */
  readonly healthPolicy?: HealthPolicy;
  /** HERALD_RETRY_AFTER_MAX_SECONDS (default: the attempt rule's). */
  readonly retryAfterMaxSeconds?: number;
  /** Sends the release signal to a held delivery's run (a resume); without it a release stops at once. */
  readonly signalRelease?: SignalRelease;
  /** The worker's Temporal client and task queue, for recovery campaigns (activities/recovery.ts). */
  readonly temporal?: RecoveryDeps['temporal'];
  /** Campaign re-deliveries' share of the re-send budget, and their window (activities/redelivery-gate.ts). */
  readonly resendLimits?: RecoveryDeps['resendLimits'];
  /** The endpoint probe (HERALD_HEALTH_PROBE_SECONDS) and the release rate of its resume; off when absent. */
  readonly probe?: { readonly intervalSeconds: number; readonly resumeRate: number };
}

/** Every activity, built over its dependencies; workflows import only this function's type. */
export function createActivities(deps: ActivityDeps) {
  const { healthPolicy: policy, retryAfterMaxSeconds, temporal, probe } = deps;
  const startProbe =
    temporal && probe ? createStartProbe({ ...temporal, intervalSeconds: probe.intervalSeconds }) : null;
  const autoPause = createAutoPause({ store: deps.store, fanOut: deps.fanOut ?? null, startProbe });
  const keys = createSigningKeyCache(deps.vault);
  return {
    attemptDelivery: createAttemptDelivery({
      store: deps.store,
      keys,
      subscriptions: createSubscriptionCache(deps.store),
      http: deps.http,
      ...(deps.now ? { now: deps.now } : {}),
      ...(deps.activityAttempt ? { activityAttempt: deps.activityAttempt } : {}),
      ...(deps.logError ? { logError: deps.logError } : {}),
      ...(deps.observer ? { observer: deps.observer } : {}),
      autoPause,
      ...(policy ? { health: createEndpointHealth({ health: deps.store.health, autoPause, policy }) } : {}),
      ...(retryAfterMaxSeconds === undefined ? {} : { retryAfterMaxSeconds }),
    }),
    releasePage: createReleasePage({ store: deps.store, signalRelease: deps.signalRelease ?? null }),
    probeEndpoint: createProbeEndpoint({
      store: deps.store,
      keys,
      http: deps.http,
      release: async (id) => {
        if (temporal) await startRelease(temporal, id, probe?.resumeRate ?? 10);
      },
    }),
    prepareRerun: createPrepareRerun({ store: deps.store, ...(deps.now ? { now: deps.now } : {}) }),
    ...createRecoveryActivities({
      store: deps.store,
      ...(deps.temporal ? { temporal: deps.temporal } : {}),
      ...(deps.resendLimits ? { resendLimits: deps.resendLimits } : {}),
    }),
  };
}

export type Activities = ReturnType<typeof createActivities>;
