// The check of an ordered subscription's deliveries at its receiver (issue 47; `fifo` and `chaos`): the requests in
// the order they arrived, against each delivery's place in its lane as the database holds it after the run.
import type { Db } from 'mongodb';
import type { DeliveryDoc } from '../../src/store/documents.js';

export interface LaneOrder {
  /** Requests that came after a request of a later place: 0 when the receiver saw the lane in order. */
  readonly outOfOrder: number;
  /** Requests of a delivery that has no place (made without order): 0 for an ordered subscription's. */
  readonly withoutPlace: number;
}

/** `arrivals`: the delivery id of each request to the subscription's receiver, in arrival order. */
export async function laneOrder(db: Db, subscriptionId: string, arrivals: readonly string[]): Promise<LaneOrder> {
  const places = new Map<string, number>();
  const found = db.collection<DeliveryDoc>('deliveries').find({ subscriptionId });
  for await (const d of found.project<Pick<DeliveryDoc, '_id' | 'fifoSeq'>>({ fifoSeq: 1 }))
    if (d.fifoSeq !== undefined) places.set(d._id, d.fifoSeq);
  let highest = 0;
  const counts = { outOfOrder: 0, withoutPlace: 0 };
  for (const id of arrivals) {
    const place = places.get(id);
    if (place === undefined) counts.withoutPlace++;
    else if (place < highest) counts.outOfOrder++;
    else highest = place;
  }
  return counts;
}
