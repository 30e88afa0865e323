// Seeds for the retention tests (retention-purge.test.ts): an integrator's history two days old, with what the purge
// must keep marked, and a listing walk.
import { randomUUID } from 'node:crypto';
import type { Db } from 'mongodb';
import { attemptEntryId } from '../../src/store/attempts-repo.js';
import type { Position } from '../../src/store/cursor.js';
import { keysetPage } from '../../src/store/cursor.js';
import type { DeliveryDoc, EventDoc } from '../../src/store/documents.js';
import type { Store } from '../../src/store/index.js';
import { seedDoc } from './events.js';

export const DAY = 86_400_000;

export type Kept = 'pending' | 'recent' | 'campaign' | 'purged';

export interface Seeded {
  integratorId: string;
  events: { doc: EventDoc; fate: Kept }[];
  deliveries: { doc: DeliveryDoc; fate: Kept }[];
}

export function delivery(e: EventDoc, sub: string, over: Partial<DeliveryDoc>): DeliveryDoc {
  return {
    _id: randomUUID(),
    integratorId: e.integratorId,
    subscriptionId: sub,
    eventId: e._id,
    eventType: e.eventType,
    status: 'succeeded',
    attemptCount: 1,
    createdAt: e.createdAt,
    updatedAt: e.createdAt,
    nextAttemptAt: null,
    terminalReason: null,
    lastResponseSummary: null,
    ...over,
  };
}

/** An integrator's history: 120 events two days old, most delivered and ended then, some kept for a reason. */
export async function seed(
  db: Db,
  store: Store,
  now: number,
  campaignSince: number | null,
  allEnded = false,
): Promise<Seeded> {
  const integratorId = randomUUID();
  await db
    .collection<{ _id: string }>('integrators')
    .insertOne({ _id: integratorId, name: 'r', createdAt: new Date() } as never);
  const sub = randomUUID();
  const t0 = now - 2 * DAY;
  const out: Seeded = { integratorId, events: [], deliveries: [] };
  for (let k = 0; k < 120; k++) {
    const type = k === 7 ? 'webhook.test' : k === 9 ? 'webhook.subscription_paused' : undefined;
    const doc = seedDoc(
      {
        integratorId,
        createdAt: new Date(t0 + k * 1000),
        accountId: `acct-${k % 3}`,
        ...(type ? { eventType: type } : {}),
      },
      k,
    );
    const inCampaign = campaignSince !== null && doc.createdAt.getTime() >= campaignSince;
    // k % 10: 0 pending (held), 1 failed a minute ago, 2 no delivery at all, else succeeded two days ago; with
    // `allEnded`, every one succeeded two days ago.
    const kind = allEnded ? 9 : k % 10;
    const d =
      kind === 0
        ? delivery(doc, sub, { status: 'pending', held: true })
        : kind === 1
          ? delivery(doc, sub, { status: 'failed', updatedAt: new Date(now - 60_000), attemptCount: 8 })
          : kind === 2
            ? null
            : delivery(doc, sub, { attemptCount: k % 10 === 3 ? 8 : 1 });
    const dFate: Kept = kind === 0 ? 'pending' : kind === 1 ? 'recent' : inCampaign ? 'campaign' : 'purged';
    if (d) out.deliveries.push({ doc: d, fate: dFate });
    out.events.push({ doc, fate: d ? dFate : inCampaign ? 'campaign' : 'purged' });
  }
  // 20 events of the last hour, delivered.
  for (let k = 0; k < 20; k++) {
    const doc = seedDoc({ integratorId, createdAt: new Date(now - 3_600_000 + k * 1000) }, k);
    out.events.push({ doc, fate: 'recent' });
    out.deliveries.push({ doc: delivery(doc, sub, { updatedAt: new Date(now - 3_000_000) }), fate: 'recent' });
  }
  await store.events.insertMany(out.events.map((e) => e.doc));
  await store.deliveries.insertMany(out.deliveries.map((d) => d.doc));
  // Moved-out attempts of the deliveries with 8 attempts.
  const moved = out.deliveries.filter((d) => d.doc.attemptCount === 8);
  await db
    .collection('attempts')
    .insertMany(moved.flatMap((d) => [1, 2, 3].map((n) => ({ _id: attemptEntryId(d.doc._id, n) }))) as never[]);
  return out;
}

/** Every id a listing walk returns, newest first. */
export async function walk<T extends { _id: string; createdAt: Date; page?: number }>(
  list: (position: Position | undefined, limit: number) => Promise<T[]>,
): Promise<string[]> {
  const ids: string[] = [];
  let position: Position | undefined;
  for (let n = 0; n < 200; n++) {
    const { page, next } = keysetPage(await list(position, 26), 25);
    ids.push(...page.map((r) => r._id));
    if (!next) return ids;
    position = next;
  }
  throw new Error('walk did not end');
}

export const idsOf = (rows: { doc: { _id: string; createdAt: Date } }[]) =>
  [...rows]
    .sort((a, b) => b.doc.createdAt.getTime() - a.doc.createdAt.getTime() || (a.doc._id < b.doc._id ? 1 : -1))
    .map((r) => r.doc._id);
