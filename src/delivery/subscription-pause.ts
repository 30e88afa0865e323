import type { SubscriptionDoc } from '../store/documents.js';
import type { Store } from '../store/index.js';

export type PauseVerdict =
  | { ok: true; subscription: SubscriptionDoc }
  /** not_found: none live; disabled: enable it first; paused_again: paused again while it was being resumed. */
  | { ok: false; reason: 'not_found' | 'disabled' | 'paused_again' };

/** The live subscription as it is now, or why it can be neither paused nor resumed. */
async function current(store: Store, integratorId: string, id: string): Promise<PauseVerdict> {
  const found = await store.subscriptions.findLive(integratorId, id);
  if (!found) return { ok: false, reason: 'not_found' };
  if (found.status === 'disabled') return { ok: false, reason: 'disabled' };
  return { ok: true, subscription: found };
}

/**
 * Pauses a subscription by hand (docs/subscriptions.md, "Pause and resume"): its deliveries are made and held.
 * Idempotent: a paused one is answered as it is.
 */
export async function pauseSubscription(store: Store, integratorId: string, id: string): Promise<PauseVerdict> {
  const paused = await store.subscriptions.pause(integratorId, id, 'manual');
  return paused ? { ok: true, subscription: paused } : await current(store, integratorId, id);
}

/**
 * Resumes a paused subscription and releases its held deliveries, oldest first. Idempotent: an enabled one is
 * answered as it is, and any delivery it still holds is released.
 */
export async function resumeSubscription(
  deps: { store: Store; release: (subscriptionId: string) => Promise<void> },
  integratorId: string,
  id: string,
): Promise<PauseVerdict> {
  const resumed = await deps.store.subscriptions.resume(integratorId, id);
  const verdict: PauseVerdict = resumed
    ? { ok: true, subscription: resumed }
    : await current(deps.store, integratorId, id);
  if (!verdict.ok) return verdict;
  if (verdict.subscription.status === 'paused') return { ok: false, reason: 'paused_again' };
  // An ordered subscription paused by a failed delivery: the deliveries after it go again, in order.
  await deps.store.fifoLanes.unblock(id);
  await deps.release(id);
  return verdict;
}
