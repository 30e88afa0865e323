// Terminal deliveries seeded straight into the store, as a long-past outage leaves them (their schedules ran out
// hours ago): the events stored, the deliveries failed or cancelled, no workflow running for any of them.
import type { DeliveryDoc } from '../../src/store/documents.js';
import { deliveryIdOf } from '../../src/store/derived-ids.js';
import type { Store } from '../../src/store/index.js';
import { lifecycleEvent } from './deliveries.js';

/** `n` deliveries of the subscription with this status, created 1 ms apart from `base` on; their ids, oldest first. */
export async function seedTerminalDeliveries(
  store: Store,
  subscription: { id: string; integratorId: string },
  n: number,
  status: 'failed' | 'cancelled',
  base: number,
): Promise<string[]> {
  const docs: DeliveryDoc[] = [];
  for (let i = 0; i < n; i++) {
    const event = lifecycleEvent(subscription.integratorId);
    await store.events.insertOnce(event);
    const createdAt = new Date(base + i);
    docs.push({
      _id: deliveryIdOf(event._id, subscription.id),
      integratorId: subscription.integratorId,
      subscriptionId: subscription.id,
      eventId: event._id,
      eventType: event.eventType,
      status,
      attemptCount: 1,
      createdAt,
      updatedAt: createdAt,
      nextAttemptAt: null,
      terminalReason: status === 'failed' ? 'retries_exhausted' : 'cancelled_by_integrator',
      lastResponseSummary: null,
    });
  }
  await store.deliveries.collection.insertMany(docs);
  return docs.map((d) => d._id);
}
