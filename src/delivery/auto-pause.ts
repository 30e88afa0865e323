import type { PauseReason } from '../domain/delivery-vocabulary.js';
import { heraldEventDoc } from '../domain/event-record.js';
import { SUBSCRIPTION_PAUSED_TYPE } from '../domain/event-types.js';
import { jsonTextOf } from '../domain/json-text.js';
import { uuidV5 } from '../store/derived-ids.js';
import type { EventDoc, SubscriptionDoc } from '../store/documents.js';
import type { Store } from '../store/index.js';
import type { StartProbe } from './endpoint-probe.js';
import type { FanOut } from './fan-out.js';

/** Pauses a subscription for Herald's own reason; answers whether this call (or an earlier, interrupted one) did. */
export type AutoPause = (
  subscription: SubscriptionDoc,
  reason: Exclude<PauseReason, 'manual'>,
  at: Date,
) => Promise<boolean>;

/** The operational event of a pause: its id derived from the paused version, so a repeat stores and starts nothing twice. */
export function subscriptionPausedEvent(paused: SubscriptionDoc): EventDoc {
  const at = paused.pausedAt ?? paused.updatedAt;
  return heraldEventDoc(
    {
      id: uuidV5(`subscription_paused:${paused._id}:${paused.version ?? 0}`),
      eventType: SUBSCRIPTION_PAUSED_TYPE,
      livemode: true,
      integratorId: paused.integratorId,
      data: jsonTextOf({
        subscriptionId: paused._id,
        url: paused.url,
        reason: paused.pausedReason ?? null,
        pausedAt: at.toISOString(),
      }),
    },
    at,
  );
}

/**
 * Pauses an enabled subscription (410 Gone, sustained failure) and records the operational event
 * `webhook.subscription_paused`: its deliveries to the integrator's other subscriptions are started first, then the
 * event is stored (as the admin API does). A repeat after a crash between the two finds the subscription paused by
 * Herald and writes the same event again (same id: nothing twice). A manual pause records no event. With the probe
 * on, its workflow is started last (idempotent: one per subscription).
 */
export function createAutoPause(deps: {
  store: Store;
  fanOut: FanOut | null;
  /** Starts the endpoint probe (HERALD_HEALTH_PROBE_SECONDS); none when null. */
  startProbe?: StartProbe | null;
}): AutoPause {
  const { store, fanOut, startProbe } = deps;
  return async (subscription, reason, at) => {
    const paused =
      (await store.subscriptions.pause(null, subscription._id, reason, at)) ??
      (await store.subscriptions.findById(subscription._id));
    if (!paused || paused.deletedAt || paused.status !== 'paused' || paused.pausedReason === 'manual') return false;
    const event = subscriptionPausedEvent(paused);
    const started = fanOut ? await fanOut.handOff(event, { except: paused._id }) : [];
    await store.events.insertOnce(event, undefined, started);
    // A failed delivery of an ordered subscription waits for its integrator's decision: no probe resumes it.
    if (startProbe && reason !== 'delivery_failed') await startProbe(paused._id);
    return true;
  };
}
