import { randomUUID } from 'node:crypto';
import { lifecycleEventTypes, providers } from '../../src/domain/event-types.js';
import { newEventDoc } from '../../src/domain/event-record.js';
import { jsonTextOf } from '../../src/domain/json-text.js';
import type { EventsRepo } from '../../src/store/events-repo.js';

/** Event i belongs to integrator i % K and was created at base + i ms: newest-first positions are computable. */
export const seedCreatedAt = (base: number, i: number): Date => new Date(base + i);

/**
 * Seeds `count` events round-robin over the integrators, in batches (1 M events never sit in memory at once).
 * Each integrator has 100 accounts, so the accountId filter selects about 1 % of its events.
 */
export async function seedEvents(
  repo: EventsRepo,
  opts: { integratorIds: string[]; count: number; base: number; batch?: number; onBatch?: (done: number) => void },
): Promise<void> {
  const accounts = opts.integratorIds.map(() => Array.from({ length: 100 }, () => randomUUID()));
  const batch = opts.batch ?? 5000;
  for (let start = 0; start < opts.count; start += batch) {
    const docs = Array.from({ length: Math.min(batch, opts.count - start) }, (_, j) => {
      const i = start + j;
      const k = i % opts.integratorIds.length;
      const createdAt = seedCreatedAt(opts.base, i);
      return newEventDoc(
        {
          id: randomUUID(),
          eventType: lifecycleEventTypes[i % lifecycleEventTypes.length]!,
          occurredAt: new Date(createdAt.getTime() - 250),
          livemode: true,
          payloadVersion: 1,
          integratorId: opts.integratorIds[k]!,
          accountId: accounts[k]![i % 100]!,
          userId: randomUUID(),
          entityId: null,
          beneficiaryId: null,
          transactionId: i % 2 === 0 ? randomUUID() : null,
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
}
