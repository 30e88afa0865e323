import { randomUUID } from 'node:crypto';
import type { DeliveriesRepo } from '../../src/store/deliveries-repo.js';
import type { DeliveryDoc } from '../../src/store/documents.js';
import { seedCreatedAt } from './events-seed.js';

/** Per integrator: the subscription that has 60 % of its deliveries (so its listing is deep). */
export interface HeavyDeliveries {
  subscriptionId: string;
  /** An event with a delivery (an event's deliveries fit one page: one per subscription). */
  eventId: string;
}

/**
 * Seeds `count` deliveries round-robin over the integrators, in batches, through the repository's bulk path
 * (insertMany of the prepared documents, then their page documents). Delivery i was created at base + i ms (beside
 * event i). Per integrator: 60 % to one heavy subscription, the rest over 9 others; statuses cycle over 10:
 * 7 succeeded, 1 pending, 1 failed, 1 cancelled (pending and failed ones fall on the heavy subscription too), so
 * `succeeded` has a page 500 at 100,000 deliveries and the three rare statuses a deepest page of about 100.
 */
export async function seedDeliveries(
  repo: DeliveriesRepo,
  opts: { integratorIds: string[]; count: number; base: number; batch?: number; onBatch?: (done: number) => void },
): Promise<HeavyDeliveries[]> {
  const K = opts.integratorIds.length;
  const subs = opts.integratorIds.map(() => Array.from({ length: 10 }, () => randomUUID()));
  const heavy = subs.map((s) => ({ subscriptionId: s[0]!, eventId: '' }));
  const batch = opts.batch ?? 5000;
  const statusOf = (n: number) =>
    n % 10 === 7 ? 'pending' : n % 10 === 2 ? 'failed' : n % 10 === 9 ? 'cancelled' : ('succeeded' as const);
  for (let start = 0; start < opts.count; start += batch) {
    const docs = Array.from({ length: Math.min(batch, opts.count - start) }, (_, j): DeliveryDoc => {
      const i = start + j;
      const k = i % K;
      const n = Math.floor(i / K);
      const createdAt = seedCreatedAt(opts.base, i);
      const eventId = randomUUID();
      heavy[k]!.eventId ||= eventId;
      const status = statusOf(n);
      return {
        _id: randomUUID(),
        integratorId: opts.integratorIds[k]!,
        subscriptionId: n % 5 < 3 ? subs[k]![0]! : subs[k]![1 + (n % 9)]!,
        eventId,
        eventType: 'customer.created',
        status,
        attemptCount: 1,
        createdAt,
        updatedAt: createdAt,
        nextAttemptAt: status === 'pending' ? createdAt : null,
        terminalReason:
          status === 'failed' ? 'retries_exhausted' : status === 'cancelled' ? 'subscription_deleted' : null,
        lastResponseSummary: { status: 204, headers: {}, body: '', truncated: false },
      };
    });
    await repo.insertMany(docs);
    opts.onBatch?.(start + docs.length);
  }
  return heavy;
}
