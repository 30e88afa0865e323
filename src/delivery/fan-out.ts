import type { Client } from '@temporalio/client';
import { deliveryIdOf } from '../store/derived-ids.js';
import type { EventDoc } from '../store/documents.js';
import type { Store } from '../store/index.js';
import { startDeliveryWorkflow } from './start-delivery.js';

export interface FanOut {
  /**
   * Starts one delivery workflow per subscription the event matches (workflow id from the delivery id, itself
   * derived from the event and the subscription: a repeat starts nothing twice). Called BEFORE the event is stored:
   * once the API answers 2xx, every delivery of the event is durable in Temporal, so no crash can lose one and no
   * sweeper is needed (docs/events.md). Writes nothing: each delivery's record is created by its first attempt.
   * Returns the matched subscriptions' ids (the ingest route files the deliveries' listing rows with the event).
   */
  handOff(event: EventDoc, options?: { except?: string }): Promise<string[]>;
}

export interface FanOutDeps {
  store: Store;
  client: Client;
  taskQueue: string;
  /**
   * The client of the API's in-process worker (src/temporal/api-worker.ts) while it runs, else null: starts through it
   * ask for eager start, so the first workflow task comes back in the start response and runs in this process.
   */
  eagerClient?: () => Client | null;
}

export function createFanOut(deps: FanOutDeps): FanOut {
  const { store, taskQueue } = deps;
  return {
    async handOff(event, options = {}) {
      // `except`: the subscription an operational event is about (it is not told about its own pause).
      const matched = (await store.subscriptions.findMatching(event)).filter((m) => m.id !== options.except);
      const eagerClient = deps.eagerClient?.() ?? null;
      const client = eagerClient ?? deps.client;
      await Promise.all(
        matched.map(async ({ id, version, fifo }) => {
          const deliveryId = deliveryIdOf(event._id, id);
          // An ordered subscription's delivery takes its place in the lane before its run exists (ingest order).
          const subscription = { _id: id, integratorId: event.integratorId };
          const fifoSeq = fifo ? await store.fifoLanes.take(subscription, deliveryId, new Date()) : undefined;
          const started = await startDeliveryWorkflow(
            client,
            taskQueue,
            {
              deliveryId,
              eventId: event._id,
              subscriptionId: id,
              subscriptionVersion: version,
              integratorId: event.integratorId,
              eventType: event.eventType,
              createdAt: event.createdAt.toISOString(),
              ...(fifoSeq === undefined ? {} : { fifoSeq }),
            },
            { eager: eagerClient !== null },
          );
          // A repeated hand-off: the delivery keeps the place it took first; this one is skipped.
          if (fifoSeq !== undefined && !started) await store.fifoLanes.markDud(id, fifoSeq);
        }),
      );
      return matched.map(({ id }) => id);
    },
  };
}
