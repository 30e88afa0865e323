import { randomUUID } from 'node:crypto';
import { lifecycleEventTypes, providers } from '../../src/domain/event-types.js';
import { newEventDoc } from '../../src/domain/event-record.js';
import { jsonTextOf } from '../../src/domain/json-text.js';
import type { EventsRepo } from '../../src/store/events-repo.js';

/** Event i belongs to integrator i % K and was created at base + i ms: newest-first positions are computable. */
export const seedCreatedAt = (base: number, i: number): Date => new Date(base + i);

/** The value of each filter that 60 % of an integrator's events share, so every filter has a page 500. */
export interface HeavyValues {
  accountId: string;
  userId: string;
  transactionId: string;
  eventType: (typeof lifecycleEventTypes)[number];
}

/**
 * Seeds `count` events round-robin over the integrators, in batches (1 M events never sit in memory at once),
 * through the repository's bulk path (events, then their listing rows). Per integrator, each equality filter has
 * one heavy value on 60 % of the events (its listing is deep); the others spread over 100 accounts, 1,000 users,
 * unique transactions (half of the rest none) and the other event types.
 */
export async function seedEvents(
  repo: EventsRepo,
  opts: { integratorIds: string[]; count: number; base: number; batch?: number; onBatch?: (done: number) => void },
): Promise<HeavyValues[]> {
  const heavy = opts.integratorIds.map(() => ({
    accountId: randomUUID(),
    userId: randomUUID(),
    transactionId: randomUUID(),
    eventType: lifecycleEventTypes[0],
  }));
  const accounts = opts.integratorIds.map(() => Array.from({ length: 100 }, () => randomUUID()));
  const users = opts.integratorIds.map(() => Array.from({ length: 1000 }, () => randomUUID()));
  const batch = opts.batch ?? 5000;
  const K = opts.integratorIds.length;
  for (let start = 0; start < opts.count; start += batch) {
    const docs = Array.from({ length: Math.min(batch, opts.count - start) }, (_, j) => {
      const i = start + j;
      const k = i % K;
      const n = Math.floor(i / K); // the event's number within its integrator
      const h = heavy[k]!;
      const createdAt = seedCreatedAt(opts.base, i);
      return newEventDoc(
        {
          id: randomUUID(),
          eventType: n % 5 < 3 ? h.eventType : lifecycleEventTypes[1 + (n % (lifecycleEventTypes.length - 1))]!,
          occurredAt: new Date(createdAt.getTime() - 250),
          livemode: true,
          payloadVersion: 1,
          integratorId: opts.integratorIds[k]!,
          accountId: (n + 1) % 5 < 3 ? h.accountId : accounts[k]![n % 100]!,
          userId: (n + 2) % 5 < 3 ? h.userId : users[k]![n % 1000]!,
          entityId: null,
          beneficiaryId: null,
          transactionId: (n + 3) % 5 < 3 ? h.transactionId : n % 2 === 0 ? randomUUID() : null,
          provider: providers[i % providers.length]!,
          providerEventId: `evt_${i}`,
          data: jsonTextOf({ amount: `${(i % 10_000) / 100}`, currency: 'EUR', reference: `ref-${i}` }),
        },
        createdAt,
      );
    });
    await repo.insertMany(docs);
    opts.onBatch?.(start + docs.length);
  }
  return heavy;
}
