import type { KeyVault } from '../src/crypto/key-encryption.js';
import type { WebhookHttpClient } from '../src/net/http-client.js';
import type { Store } from '../src/store/index.js';
import { createAttemptDelivery } from './attempt-delivery.js';
import { createSigningKeyCache } from './signing-keys.js';

export interface ActivityDeps {
  readonly store: Store;
  readonly vault: KeyVault;
  readonly http: WebhookHttpClient;
  readonly now?: () => Date;
  /** Tests calling activities outside a worker say whether a call is a retry (default: Temporal's attempt > 1). */
  readonly retried?: () => boolean;
}

/** Every activity, built over its dependencies; workflows import only this function's type. */
export function createActivities(deps: ActivityDeps) {
  return {
    attemptDelivery: createAttemptDelivery({
      store: deps.store,
      keys: createSigningKeyCache(deps.vault),
      http: deps.http,
      ...(deps.now ? { now: deps.now } : {}),
      ...(deps.retried ? { retried: deps.retried } : {}),
    }),
  };
}

export type Activities = ReturnType<typeof createActivities>;
