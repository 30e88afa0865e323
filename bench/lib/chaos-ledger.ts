// The chaos run's receiver side: what arrived for each delivery, the answers given, and the figures drawn from them.
import type { ReceiverResponse, RecordedRequest } from '../../test/helpers/receiver.js';

interface Receipt {
  at: number;
  status: number;
}

interface DeliveryLedger {
  eventId: string;
  /** The subscription's receiver path (one per subscription). */
  path: string;
  receipts: Receipt[];
  /** When the first 2xx was given. */
  deliveredAt?: number;
}

export interface ChaosLedger {
  /** The receiver's handler: 503 to every `failEvery`-th first receipt, 204 otherwise. */
  handle(request: RecordedRequest): ReceiverResponse;
  ingested(eventId: string, at: number): void;
  readonly ingestedCount: number;
  /** Deliveries (event × subscription) that have had a 2xx. */
  delivered(): number;
  /** Deliveries still owed an answer: ingested, no 2xx yet, and not waiting on a retry after a 503. */
  waiting(at?: number): number;
  /** 2xx answers given (first ones only) in [from, to). */
  deliveredBetween(from: number, to: number): number;
  /** Receipts after that delivery's first 2xx, and the deliveries that had any. */
  duplicates(): { posts: number; deliveries: number };
  lastDeliveredAt(): number;
  /** The delivery id of every request to `path`, in the order they arrived. */
  arrivals(path: string): string[];
}

/** `calmPaths`: paths never answered 503 (an ordered subscription: each 503 would hold its whole lane for 30 s). */
export function createChaosLedger(
  paths: readonly string[],
  failEvery = 10,
  calmPaths: readonly string[] = [],
): ChaosLedger {
  const ingestedAt = new Map<string, number>();
  const byDelivery = new Map<string, DeliveryLedger>();
  const arrivals: { path: string; deliveryId: string }[] = [];
  let firstReceipts = 0;

  return {
    handle(request) {
      const deliveryId = String(request.headers['x-service-webhook-delivery-id']);
      const eventId = String(request.headers['x-service-webhook-event-id']);
      let entry = byDelivery.get(deliveryId);
      let status = 204;
      arrivals.push({ path: request.url, deliveryId });
      if (!entry) {
        entry = { eventId, path: request.url, receipts: [] };
        byDelivery.set(deliveryId, entry);
        if (!calmPaths.includes(request.url) && ++firstReceipts % failEvery === 0) status = 503;
      }
      entry.receipts.push({ at: request.receivedAt, status });
      if (status < 300) entry.deliveredAt ??= request.receivedAt;
      return { status };
    },
    ingested(eventId, at) {
      if (!ingestedAt.has(eventId)) ingestedAt.set(eventId, at);
    },
    get ingestedCount() {
      return ingestedAt.size;
    },
    delivered() {
      let n = 0;
      for (const d of byDelivery.values()) if (d.deliveredAt !== undefined && ingestedAt.has(d.eventId)) n += 1;
      return n;
    },
    waiting(at = Date.now()) {
      let owed = 0;
      for (const t of ingestedAt.values()) if (t <= at) owed += paths.length;
      for (const d of byDelivery.values()) {
        const t = ingestedAt.get(d.eventId);
        if (t === undefined || t > at) continue;
        const seen = d.receipts.filter((r) => r.at <= at);
        const last = seen[seen.length - 1];
        if ((d.deliveredAt !== undefined && d.deliveredAt <= at) || last?.status === 503) owed -= 1;
      }
      return owed;
    },
    deliveredBetween(from, to) {
      let n = 0;
      for (const d of byDelivery.values())
        if (d.deliveredAt !== undefined && d.deliveredAt >= from && d.deliveredAt < to) n++;
      return n;
    },
    duplicates() {
      let posts = 0;
      let deliveries = 0;
      for (const d of byDelivery.values()) {
        if (d.deliveredAt === undefined) continue;
        const after = d.receipts.filter((r) => r.at >= d.deliveredAt!).length - 1;
        posts += after;
        if (after > 0) deliveries += 1;
      }
      return { posts, deliveries };
    },
    arrivals(path) {
      return arrivals.filter((a) => a.path === path).map((a) => a.deliveryId);
    },
    lastDeliveredAt() {
      let last = 0;
      for (const d of byDelivery.values()) last = Math.max(last, d.deliveredAt ?? 0);
      return last;
    },
  };
}
