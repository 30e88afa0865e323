import type { SubscriptionDoc } from '../src/store/documents.js';
import type { Store } from '../src/store/index.js';

/**
 * Subscriptions as this worker last read them. A first attempt made right after its hand-off asks for the version the
 * event was matched against and reads nothing when it has it: every delivery to one subscription shares one read.
 * Every other attempt reads the subscription as it is now (and refreshes the entry). Bounded, oldest out first.
 */
export function createSubscriptionCache(store: Pick<Store, 'subscriptions'>, maxEntries = 10_000) {
  const cache = new Map<string, SubscriptionDoc>();

  async function current(id: string): Promise<SubscriptionDoc | null> {
    const doc = await store.subscriptions.findById(id);
    if (!doc) return null;
    cache.delete(id);
    if (cache.size >= maxEntries) cache.delete(cache.keys().next().value as string);
    cache.set(id, doc);
    return doc;
  }

  return {
    current,
    /** The subscription at `version` from memory, else as it is now. */
    async atVersion(id: string, version: number): Promise<SubscriptionDoc | null> {
      const cached = cache.get(id);
      return cached && (cached.version ?? 0) === version ? cached : await current(id);
    },
  };
}

export type SubscriptionCache = ReturnType<typeof createSubscriptionCache>;
