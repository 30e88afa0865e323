import type { KeyVault } from '../src/crypto/key-encryption.js';
import type { AttemptGate } from '../src/net/attempt-gate.js';
import type { WebhookHttpClient } from '../src/net/http-client.js';
import type { Store } from '../src/store/index.js';
import type { AttemptObserver } from '../src/telemetry/attempt-observer.js';
import { createAttemptDelivery, type LogError } from './attempt-delivery.js';
import { createAttemptStats } from './attempt-stats.js';
import type { DeliveryPort } from './delivery-port.js';
import { createEndpointHealth, type HealthPolicy } from './endpoint-health.js';
import { createPrepareRerun } from './prepare-rerun.js';
import { createProbeEndpoint } from './probe-endpoint.js';
import { createRecoveryActivities, type RecoveryDeps } from './recovery.js';
import { createReleasePage } from './release-page.js';
import { createRetentionActivities } from './retention.js';
import { createErasureActivities } from './erasure.js';
import { defaultRetentionPolicy, type RetentionPolicy } from '../src/retention/purge.js';
import { createSigningKeyCache } from './signing-keys.js';
import { createSubscriptionCache } from './subscription-cache.js';
import { createFifoTurns } from '../src/ordering/fifo-turns.js';

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
  /**
   * The delivery service, for every workflow the activities start, signal or query (a pause, a release, a campaign's
   * re-deliveries). Absent (tests calling activities alone): nothing is paused, a release stops at once, and a
   * campaign's re-deliveries fail as not configured.
   */
  readonly delivery?: DeliveryPort;
  /** When a failing endpoint is paused; never when absent (or without the delivery service). */
  readonly healthPolicy?: HealthPolicy;
  /** HERALD_RETRY_AFTER_MAX_SECONDS (default: the attempt rule's). */
  readonly retryAfterMaxSeconds?: number;
  /** Campaign re-deliveries' share of the re-send budget, and their window (activities/redelivery-gate.ts). */
  readonly resendLimits?: RecoveryDeps['resendLimits'];
  /** The integrator's share of attempt slots and the breakers (src/net/attempt-gate.ts); default: breakers only. */
  readonly gate?: AttemptGate;
  /** What the retention purge keeps and how it paces itself (docs/retention.md); default: HERALD_RETENTION's. */
  readonly retention?: RetentionPolicy;
  /** How long an ordered lane's place without a slot is waited for once noted (default 30 s); tests shorten it. */
  readonly fifoMissingGraceMs?: number;
}

/** Outside an activity (the stats' writes) with no logger given: one JSON line on stderr. */
const logToStderr: LogError = (message, fields) => {
  process.stderr.write(`${JSON.stringify({ level: 'error', message, ...fields })}\n`);
};

/** Every activity, built over its dependencies; workflows import only this function's type. */
export function createActivities(deps: ActivityDeps) {
  const { healthPolicy: policy, retryAfterMaxSeconds, delivery } = deps;
  const autoPause = delivery ? (...args: Parameters<DeliveryPort['autoPause']>) => delivery.autoPause(...args) : null;
  const keys = createSigningKeyCache(deps.vault);
  const stats = createAttemptStats({ repo: deps.store.attemptStats, logError: deps.logError ?? logToStderr });
  return {
    ...createAttemptDelivery({
      store: deps.store,
      keys,
      subscriptions: createSubscriptionCache(deps.store),
      http: deps.http,
      ...(deps.now ? { now: deps.now } : {}),
      ...(deps.activityAttempt ? { activityAttempt: deps.activityAttempt } : {}),
      ...(deps.logError ? { logError: deps.logError } : {}),
      ...(deps.observer ? { observer: deps.observer } : {}),
      ...(autoPause ? { autoPause } : {}),
      ...(policy && autoPause
        ? { health: createEndpointHealth({ health: deps.store.health, autoPause, policy }) }
        : {}),
      ...(retryAfterMaxSeconds === undefined ? {} : { retryAfterMaxSeconds }),
      ...(deps.gate ? { gate: deps.gate } : {}),
      stats,
      turns: createFifoTurns({
        lanes: deps.store.fifoLanes,
        signalRelease: delivery ? (id) => delivery.signalRelease(id) : null,
        seqOf: delivery ? (id) => delivery.fifoSeqOf(id) : null,
        now: deps.now ?? (() => new Date()),
        ...(deps.fifoMissingGraceMs === undefined ? {} : { missingGraceMs: deps.fifoMissingGraceMs }),
      }),
    }),
    releasePage: createReleasePage({
      store: deps.store,
      signalRelease: delivery ? (id) => delivery.signalRelease(id) : null,
    }),
    probeEndpoint: createProbeEndpoint({
      store: deps.store,
      keys,
      http: deps.http,
      release: async (id) => {
        if (delivery) await delivery.release(id);
      },
    }),
    prepareRerun: createPrepareRerun({ store: deps.store, ...(deps.now ? { now: deps.now } : {}) }),
    ...createRecoveryActivities({
      store: deps.store,
      ...(delivery ? { delivery } : {}),
      ...(deps.resendLimits ? { resendLimits: deps.resendLimits } : {}),
    }),
    ...createRetentionActivities({
      store: deps.store,
      policy: deps.retention ?? defaultRetentionPolicy,
      ...(delivery ? { delivery } : {}),
    }),
    ...createErasureActivities({
      store: deps.store,
      pace: deps.retention ?? defaultRetentionPolicy,
      ...(delivery ? { delivery } : {}),
    }),
  };
}

export type Activities = ReturnType<typeof createActivities>;
