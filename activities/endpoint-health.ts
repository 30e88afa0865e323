import type { PostOutcome } from '../src/domain/delivery-vocabulary.js';
import type { SubscriptionDoc } from '../src/store/documents.js';
import type { HealthRepo } from '../src/store/health-repo.js';
import type { DeliveryPort } from './delivery-port.js';
import { createHealthWrites } from './health-writes.js';

/** When an endpoint that keeps failing is paused (HERALD_HEALTH_PAUSE_AFTER_SECONDS, HERALD_HEALTH_PAUSE_MIN_FAILURES). */
export interface HealthPolicy {
  /** No 2xx for this long… */
  readonly pauseAfterMs: number;
  /** …and at least this many failed attempts since the last 2xx. */
  readonly minFailures: number;
}

/** A 2xx is written at most this often per subscription and worker while the endpoint is healthy. */
const SUCCESS_WRITE_EVERY_MS = 60_000;
const MAX_ENTRIES = 10_000;

/**
 * Endpoint health on the hot path, cheaply: a 2xx writes nothing while this worker knows the endpoint healthy (at
 * most one write a minute per subscription); each failed attempt is counted on the subscription's health document
 * by a write by `_id` (the failures that arrive while one is in flight by the next one: activities/health-writes.ts),
 * and pauses the subscription once the policy says so (docs/subscriptions.md).
 */
export function createEndpointHealth(deps: {
  health: Pick<HealthRepo, 'failed' | 'succeeded'>;
  autoPause: DeliveryPort['autoPause'];
  policy: HealthPolicy;
}) {
  const { autoPause, policy } = deps;
  const health = createHealthWrites(deps.health);
  /** Per subscription: what this worker last wrote, and when. */
  const written = new Map<string, { failing: boolean; at: number }>();
  const remember = (id: string, failing: boolean, at: number) => {
    written.delete(id);
    if (written.size >= MAX_ENTRIES) written.delete(written.keys().next().value as string);
    written.set(id, { failing, at });
  };

  return {
    /** Takes in the outcome of an attempt made to `subscription`; answers whether it paused the subscription. */
    async observe(subscription: SubscriptionDoc, outcome: PostOutcome, at: Date): Promise<boolean> {
      const id = subscription._id;
      if (outcome === 'succeeded') {
        const last = written.get(id);
        if (last && !last.failing && at.getTime() - last.at < SUCCESS_WRITE_EVERY_MS) return false;
        await health.succeeded(id, at);
        remember(id, false, at.getTime());
        return false;
      }
      const doc = await health.failed(id, at);
      remember(id, true, at.getTime());
      const failingFor = at.getTime() - (doc.failingSince ?? at).getTime();
      if (doc.failures < policy.minFailures || failingFor < policy.pauseAfterMs) return false;
      return await autoPause(subscription, 'endpoint_unhealthy', at);
    },
  };
}

export type EndpointHealth = ReturnType<typeof createEndpointHealth>;
