import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Store } from '../src/store/index.js';
import type { ReleasedPage, ReleaseInput } from '../workflows/types.js';

/** How long a release waits for a released delivery's attempt before it releases the next (keeps the order). */
const ORDER_WAIT_MS = 5_000;
const ORDER_POLL_MS = 20;

/** Sends the `release` signal to a delivery's run; false when the run has ended (cancelled meanwhile). */
export type SignalRelease = (deliveryId: string) => Promise<boolean>;

/**
 * Resolves once performance.now() has reached `at`. A timer can fire a little early against that clock (it counts
 * from the event loop's cached time, which a busy loop leaves behind), so it waits again for what is left.
 */
async function sleepUntil(at: number): Promise<void> {
  for (let left = at - performance.now(); left > 0; left = at - performance.now()) await sleep(left);
}

/**
 * The release workflow's one activity: releases a page of a subscription's held deliveries, oldest first, one at a
 * time, each at least 1/rate s after the one before (timed here: a workflow timer per delivery costs a server round
 * trip each, far coarser). Time lost waiting for an attempt is never made up by releasing faster afterwards: the rate
 * is a promise to a receiver coming back up (docs/subscriptions.md), so it is a bound on every window, not an average.
 */
export function createReleasePage(deps: { store: Store; signalRelease: SignalRelease | null }) {
  const { store, signalRelease } = deps;

  /**
   * Waits (by `_id`, briefly) until the released delivery's attempt is recorded, so that the next one's request cannot
   * overtake it: the receiver sees them oldest first unless an attempt takes longer than ORDER_WAIT_MS.
   */
  async function attemptMade(deliveryId: string): Promise<void> {
    const deadline = Date.now() + ORDER_WAIT_MS;
    while (Date.now() < deadline) {
      const delivery = await store.deliveries.findById(deliveryId);
      if (!delivery || delivery.held !== true || delivery.status !== 'pending') return;
      await sleep(ORDER_POLL_MS);
    }
  }
  return async function releasePage(
    subscriptionId: string,
    after: ReleaseInput['after'],
    limit: number,
    ratePerSecond: number,
  ): Promise<ReleasedPage> {
    const subscription = await store.subscriptions.findById(subscriptionId);
    // Paused again, deleted (its deliveries are cancelled) or disabled: nothing is released.
    const stopped = !subscription || subscription.deletedAt || subscription.status !== 'enabled';
    if (stopped || !signalRelease) return { stop: true, count: 0, released: 0, last: null };
    const position = after ? { createdAt: new Date(after.createdAt), id: after.id } : null;
    const held = await store.deliveries.listHeld(subscriptionId, position, limit);
    const gapMs = 1000 / ratePerSecond;
    let nextAt = 0; // performance.now() before which no signal goes
    let released = 0;
    for (const delivery of held) {
      await sleepUntil(nextAt);
      if (await signalRelease(delivery.id)) {
        // From the acknowledged signal: the server saw it no later than now.
        nextAt = performance.now() + gapMs;
        released += 1;
        await attemptMade(delivery.id);
      }
    }
    // The next page (a continue-as-new run) starts no sooner than one gap after this page's last release.
    await sleepUntil(nextAt);
    const last = held.at(-1);
    return {
      stop: false,
      count: held.length,
      released,
      last: last ? { createdAt: last.createdAt.toISOString(), id: last.id } : null,
    };
  };
}
