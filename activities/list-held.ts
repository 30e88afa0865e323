import type { Store } from '../src/store/index.js';
import type { HeldPage, ReleaseInput } from '../workflows/types.js';

/** The release workflow's one activity: a page of a subscription's held deliveries, oldest first. */
export function createListHeld(deps: { store: Store }) {
  const { store } = deps;
  return async function listHeld(
    subscriptionId: string,
    after: ReleaseInput['after'],
    limit: number,
  ): Promise<HeldPage> {
    const subscription = await store.subscriptions.findById(subscriptionId);
    // Paused again, deleted (its deliveries are cancelled) or disabled: nothing is released.
    if (!subscription || subscription.deletedAt || subscription.status !== 'enabled')
      return { stop: true, deliveries: [] };
    const position = after ? { createdAt: new Date(after.createdAt), id: after.id } : null;
    const held = await store.deliveries.listHeld(subscriptionId, position, limit);
    return { stop: false, deliveries: held.map((d) => ({ id: d.id, createdAt: d.createdAt.toISOString() })) };
  };
}
