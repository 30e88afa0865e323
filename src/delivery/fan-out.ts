import type { Client } from '@temporalio/client';
import type { Store } from '../store/index.js';
import type { EventDoc } from '../store/documents.js';
import { startDeliveryWorkflow } from './start-delivery.js';

export interface FanOut {
  /**
   * Hands a stored event to delivery: one delivery record per matching subscription (unique per event and
   * subscription) and its workflow (unique per delivery id), then marks the event `fanoutAt`. Every step is
   * idempotent, so a crash anywhere is repaired by running it again — by a re-submitted event or by the sweeper.
   */
  handOff(event: EventDoc): Promise<number>;
}

export function createFanOut(deps: { store: Store; client: Client; taskQueue: string }): FanOut {
  const { store, client, taskQueue } = deps;
  return {
    async handOff(event) {
      const subscriptions = await store.subscriptions.findMatching(event);
      await Promise.all(
        subscriptions.map(async (subscription) => {
          const delivery = await store.deliveries.createOnce({
            integratorId: event.integratorId,
            subscriptionId: subscription._id,
            eventId: event._id,
            eventType: event.eventType,
          });
          await startDeliveryWorkflow(client, taskQueue, delivery);
        }),
      );
      await store.events.markFannedOut(event._id);
      return subscriptions.length;
    },
  };
}
