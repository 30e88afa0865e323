import type { KeyVault } from '../src/crypto/key-encryption.js';
import type { WebhookHttpClient } from '../src/net/http-client.js';
import type { Store } from '../src/store/index.js';
import type { AttemptObserver } from '../src/telemetry/attempt-observer.js';
import { createAttemptDelivery } from './attempt-delivery.js';
import { createSigningKeyCache } from './signing-keys.js';

export interface ActivityDeps {
  readonly store: Store;
  readonly vault: KeyVault;
  readonly http: WebhookHttpClient;
  readonly now?: () => Date;
  /** Metrics and log lines about each attempt (src/telemetry/attempt-observer.ts); none when absent. */
  readonly observer?: AttemptObserver;
  /** Tests calling activities outside a worker say whether a call is a retry (default: Temporal's attempt > 1). */
  readonly retried?: () => boolean;
}

/** Every activity, built over its dependencies; workflows import only this function's type. */
export function createActivities(deps: ActivityDeps) {
  return {
    /** Does nothing but answer: the baseline activity of bench/delivery. */
    async noop(input: string): Promise<string> {
      return input;
    },
    attemptDelivery: createAttemptDelivery({
      store: deps.store,
      keys: createSigningKeyCache(deps.vault),
      http: deps.http,
      ...(deps.now ? { now: deps.now } : {}),
      ...(deps.retried ? { retried: deps.retried } : {}),
      ...(deps.observer ? { observer: deps.observer } : {}),
    }),
  };
}

export type Activities = ReturnType<typeof createActivities>;
