import type { Collection, Filter } from 'mongodb';
import { after, newestFirst, type Position } from './cursor.js';
import type { DeliveryDoc } from './documents.js';

export interface OperatorDeliveryFilters {
  status?: DeliveryDoc['status'];
  subscriptionId?: string;
  integratorId?: string;
  /** createdAt at or after. */
  since?: Date;
}

/**
 * A page of every integrator's deliveries for an operator, newest first (keyset). Not a hot path: on the embedded
 * MongoDB-wire server it scans; real MongoDB uses the deliveries indexes (src/store/indexes.ts).
 */
export async function listOperatorDeliveries(
  deliveries: Collection<DeliveryDoc>,
  { since, ...equal }: OperatorDeliveryFilters,
  position: Position | null,
  limit: number,
): Promise<DeliveryDoc[]> {
  const query: Filter<DeliveryDoc> = {
    ...Object.fromEntries(Object.entries(equal).filter(([, v]) => v !== undefined)),
    ...(since ? { createdAt: { $gte: since } } : {}),
  };
  const page = position ? { $and: [query, after<DeliveryDoc>(position)] } : query;
  return await deliveries.find(page).sort(newestFirst).limit(limit).toArray();
}
