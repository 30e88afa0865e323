import { randomUUID } from 'node:crypto';
import { buildWebhookHeaders, signWebhook } from '../src/crypto/webhook-signature.js';
import { heraldEventDoc } from '../src/domain/event-record.js';
import { TEST_EVENT_TYPE } from '../src/domain/event-types.js';
import { jsonTextOf } from '../src/domain/json-text.js';
import type { WebhookHttpClient } from '../src/net/http-client.js';
import type { SubscriptionDoc } from '../src/store/documents.js';
import type { Store } from '../src/store/index.js';
import type { createSigningKeyCache } from './signing-keys.js';

export type ProbeResult = 'resumed' | 'ended' | 'failing';

/** Paused by Herald (not by hand), live and still paused: the only state a probe works on. */
const pausedByHerald = (s: SubscriptionDoc | null): s is SubscriptionDoc =>
  s !== null && s.deletedAt === null && s.status === 'paused' && s.pausedReason !== 'manual';

/**
 * One probe of a subscription Herald paused: a signed `webhook.test` POST (data.probe true) through the pinned,
 * bounded client; nothing is stored (no event, no delivery). On a 2xx the subscription is resumed as POST …/resume
 * does (repo.resume, then the release of its held deliveries). 'ended' when it is no longer paused by Herald.
 */
export function createProbeEndpoint(deps: {
  store: Store;
  keys: ReturnType<typeof createSigningKeyCache>;
  http: WebhookHttpClient;
  /** Starts the release of the resumed subscription's held deliveries. */
  release: (subscriptionId: string) => Promise<void>;
}) {
  const { store, keys, http, release } = deps;
  return async (subscriptionId: string): Promise<ProbeResult> => {
    const subscription = await store.subscriptions.findById(subscriptionId);
    if (!pausedByHerald(subscription)) return 'ended';
    const keyId = subscription.activeKeyId;
    const key = await keys.get(keyId, () => store.subscriptions.findKey(keyId));
    const now = new Date();
    const event = heraldEventDoc(
      {
        id: randomUUID(),
        eventType: TEST_EVENT_TYPE,
        livemode: false,
        integratorId: subscription.integratorId,
        data: jsonTextOf({ message: 'A probe from Herald.', probe: true, subscriptionId }),
      },
      now,
    );
    const deliveryId = randomUUID(); // no delivery record: the id only names this probe in the signature
    const timestamp = Math.floor(now.getTime() / 1000);
    const signature = signWebhook(key, deliveryId, timestamp, event.body);
    const headers = buildWebhookHeaders({ deliveryId, eventId: event._id, keyId, timestamp, signature });
    const post = await http.post(subscription.url, headers, event.body);
    if (post.outcome !== 'succeeded') return 'failing';
    const resumed = await store.subscriptions.resume(subscription.integratorId, subscriptionId);
    if (!resumed) return 'ended'; // resumed (or changed) meanwhile by someone else
    await store.health.succeeded(subscriptionId, new Date());
    await release(subscriptionId);
    return 'resumed';
  };
}
