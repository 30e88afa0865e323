// The isolation tests' race: a backlog of slow attempts on a worker whose two attempt slots they all want, then one
// event for another endpoint. How long that one waited, and how many slow requests went before it.
import type { LifecycleEventType } from '../../src/domain/event-types.js';
import type { DeliveryStack } from './delivery-stack.js';
import { eventually } from './deliveries.js';

export interface BacklogRace {
  /** Where the backlog goes: its path (held `delayMs` by the receiver), event type and size. */
  readonly slow: { readonly path: string; readonly eventType: LifecycleEventType; readonly delayMs: number };
  readonly backlog: number;
  /** The other endpoint's path and event type, and how long its delivery may take to arrive. */
  readonly other: { readonly path: string; readonly eventType: LifecycleEventType; readonly withinMs: number };
}

export interface BacklogRaceResult {
  /** The backlog's event ids, in publishing order. */
  readonly slowEvents: string[];
  /** From publishing the other endpoint's event to its request's arrival. */
  readonly waitedMs: number;
  /** Slow requests that arrived before it. */
  readonly slowBefore: number;
}

/** Both subscriptions must exist; the slow endpoint's delay is set here (clear `stack.delays` after). */
export async function publishBehindBacklog(stack: DeliveryStack, race: BacklogRace): Promise<BacklogRaceResult> {
  const { slow, other } = race;
  stack.delays.set(slow.path, slow.delayMs);
  const slowEvents: string[] = [];
  for (let i = 0; i < race.backlog; i++) slowEvents.push(await stack.publish(slow.eventType));
  // Both slots hold slow attempts and the rest wait in the task queue when the other endpoint's event comes.
  await eventually(
    () => (stack.requestsTo(slow.path).length >= 2 ? true : undefined),
    15_000,
    'the slow endpoint to hold both slots',
  );
  const publishedAt = Date.now();
  await stack.publish(other.eventType);
  await eventually(
    () => (stack.requestsTo(other.path).length === 1 ? true : undefined),
    other.withinMs,
    `the delivery to ${other.path}`,
  );
  const arrivedAt = stack.requestsTo(other.path)[0]?.receivedAt ?? Infinity;
  const slowBefore = stack.requestsTo(slow.path).filter((r) => r.receivedAt < arrivedAt).length;
  return { slowEvents, waitedMs: arrivedAt - publishedAt, slowBefore };
}
