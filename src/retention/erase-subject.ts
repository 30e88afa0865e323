import { performance } from 'node:perf_hooks';
import { findByIds } from '../store/by-ids.js';
import type { DeliveryDoc } from '../store/documents.js';
import type { Store } from '../store/index.js';
import type { EventRow } from '../store/listing/index.js';
import { posOf } from '../store/pages/index.js';
import type { SubjectErasureCounts, WalkPosition } from '../../workflows/erasure-messages.js';
import { restAfter, type Pace } from './purge-integrator.js';
import { purgeDeliveries, purgeEvents } from './purge-items.js';

/** One subject's erasure as a pass sees it: the integrator, the id its events name, the events examined. */
export interface Subject {
  readonly integratorId: string;
  readonly subjectId: string;
  /** Events created from this instant on are not examined (new data, after the request). */
  readonly before: Date;
}

/**
 * Whether an event names the subject: its stored body (the routing ids and the payload's `data`, as delivered) holds
 * the id's text, in any letter case. An id is a uuid: its text cannot occur by chance.
 */
export const namesSubject = (body: string, subjectId: string): boolean =>
  body.toLowerCase().includes(subjectId.toLowerCase());

/** Cancels a pending delivery and tells its run (the delivery service's cancel); `ok` false when it had ended. */
export type CancelDelivery = (delivery: DeliveryDoc) => Promise<{ ok: boolean }>;

/**
 * One pass over the integrator's events from `from`, oldest first, until the deadline: `cancel` ends the pending
 * deliveries of the events that name the subject; `erase` cancels any still pending (a manual retry meanwhile), then
 * deletes the events with their deliveries, attempts and listing rows. Answers the counts and where the next call
 * starts (null: the walks are done).
 */
export async function subjectErasurePass(
  store: Store,
  cancel: CancelDelivery,
  subject: Subject,
  mode: 'cancel' | 'erase',
  from: WalkPosition,
  pace: Pace,
  heartbeat: (() => void) | null = null,
): Promise<{ counts: SubjectErasureCounts; next: WalkPosition | null }> {
  const { integratorId } = subject;
  const counts: SubjectErasureCounts = { events: 0, deliveries: 0, attempts: 0, cancelledDeliveries: 0 };
  const walks = (await store.retention.walks(integratorId)).events;
  let { walk, after } = from;
  while (walk < walks.length) {
    if (Date.now() >= pace.deadline) return { counts, next: { walk, after } };
    const startedAt = performance.now();
    const rows = await walks[walk]!.next(subject.before, pace.batch, after ?? undefined);
    if (rows.length === 0) {
      walk += 1;
      after = null;
      continue;
    }
    const named = rows.filter((r) => namesSubject(r.b, subject.subjectId));
    if (named.length > 0) await eraseBatch(named);
    after = posOf(rows.at(-1)!);
    heartbeat?.();
    await restAfter(pace, startedAt);
  }
  return { counts, next: null };

  async function eraseBatch(events: EventRow[]) {
    const deliveryRows = await store.retention.deliveriesOf(
      integratorId,
      events.map((r) => r.i),
    );
    const docs = await findByIds(
      store.db.collection<DeliveryDoc>('deliveries'),
      deliveryRows.map((r) => r.i),
    );
    for (const d of docs) if (d?.status === 'pending' && (await cancel(d)).ok) counts.cancelledDeliveries += 1;
    if (mode === 'cancel') return;
    const rule = { cutoff: new Date(), erase: true };
    const gone = await purgeDeliveries(store.db, store.retention, integratorId, deliveryRows, rule);
    const erased = await purgeEvents(store.db, store.retention, integratorId, events, [], rule);
    counts.deliveries += gone.deliveries;
    counts.attempts += gone.attempts;
    counts.events += erased.events;
  }
}
