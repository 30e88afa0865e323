// What the worker knows about the deliveries its workflows and activities work on, for the Temporal SDK's own log
// lines, which name only a workflow id or a run id (src/telemetry/temporal-logger.ts adds the rest from here).
// Bounded: the oldest delivery is forgotten first; a forgotten one is learnt again from its next activation.
import { deliveryWorkflowId } from '../../workflows/messages.js';

export interface DeliveryLogIds {
  deliveryId: string;
  eventId?: string;
  subscriptionId?: string;
  integratorId?: string;
  /** The attempt the run is making or has made last (its first attempt number before any). */
  attemptNumber?: number;
}

const PREFIX = deliveryWorkflowId('');
/** ≈ 300 bytes each: a few MB at most, more than the deliveries a worker touches in minutes. */
export const DELIVERY_LOG_IDS_LIMIT = 10_000;

const byDelivery = new Map<string, DeliveryLogIds>();
const deliveryOfRun = new Map<string, string>();
/** What a run's first activation says, decoded only when a line about the delivery is written (most never are). */
const undecoded = new Map<string, () => Partial<DeliveryLogIds>>();

function setBounded<V>(map: Map<string, V>, key: string, value: V): void {
  map.delete(key); // re-inserted last: the most recently used stays longest
  map.set(key, value);
  if (map.size > DELIVERY_LOG_IDS_LIMIT) map.delete(map.keys().next().value!);
}

/** The delivery of a workflow id `delivery:<deliveryId>`, else undefined. */
export function deliveryIdOfWorkflow(workflowId: unknown): string | undefined {
  return typeof workflowId === 'string' && workflowId.startsWith(PREFIX) ? workflowId.slice(PREFIX.length) : undefined;
}

/**
 * Adds what a line, an activation or an activity knows; keeps what it does not say. `later` is decoded on the first
 * look-up, under what is known by then (an attempt's number is newer than the run's first).
 */
export function rememberDeliveryIds(
  fields: Partial<DeliveryLogIds> & { deliveryId: string },
  runId?: string,
  later?: () => Partial<DeliveryLogIds>,
): void {
  const { deliveryId } = fields;
  const merged: Record<string, unknown> = { ...byDelivery.get(deliveryId) };
  for (const key in fields) {
    const value = fields[key as keyof DeliveryLogIds];
    if (value !== undefined) merged[key] = value;
  }
  setBounded(byDelivery, deliveryId, merged as unknown as DeliveryLogIds);
  if (later) setBounded(undecoded, deliveryId, later);
  if (runId) setBounded(deliveryOfRun, runId, deliveryId);
}

/** The ids of a delivery, by its id or by the id of one of its runs. */
export function deliveryIdsOf(ref: { deliveryId?: string; runId?: string }): DeliveryLogIds | undefined {
  const deliveryId = ref.deliveryId ?? (ref.runId === undefined ? undefined : deliveryOfRun.get(ref.runId));
  if (deliveryId === undefined) return undefined;
  const later = undecoded.get(deliveryId);
  if (later) {
    undecoded.delete(deliveryId);
    const decoded = Object.entries(later()).filter(([, v]) => v !== undefined);
    byDelivery.set(deliveryId, { ...Object.fromEntries(decoded), ...byDelivery.get(deliveryId), deliveryId });
  }
  return byDelivery.get(deliveryId) ?? { deliveryId };
}

/** For tests: how many deliveries are remembered. */
export function rememberedDeliveries(): number {
  return byDelivery.size;
}
