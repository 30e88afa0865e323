import type { Db } from 'mongodb';
import { terminalStatuses } from '../domain/delivery-vocabulary.js';
import { attemptEntryId } from '../store/attempts-repo.js';
import { deleteByIds, findByIds } from '../store/by-ids.js';
import type { DeliveryDoc, EventDoc } from '../store/documents.js';
import { toRow, type DeliveryRow, type EventRow, type RetentionListing } from '../store/listing/index.js';

const TERMINAL: ReadonlySet<string> = new Set(terminalStatuses);
/** Attempt entries looked for by `_id` when a delivery's count is unknown (its document went first). */
const ORPHAN_ATTEMPTS = 16;

/**
 * What a pass deletes: with `erase`, everything of the integrator it walks (an erasure, after its live work was
 * cancelled); otherwise what ended before `cutoff` (retention).
 */
export interface PurgeRule {
  cutoff: Date;
  erase?: boolean;
}

export interface ItemCounts {
  deliveries: number;
  attempts: number;
  events: number;
}

/**
 * One batch of a walk's delivery rows: each delivery that ended before the cutoff is deleted (the delete repeats the
 * condition, so a delivery a manual retry re-opened meanwhile stays), then its attempts and its listing rows. A row
 * whose delivery is gone and whose event is gone too (a run that stopped half-way) loses its rows as well; one whose
 * event is still stored may name a delivery whose run has not stored it yet, and stays. Answers the counts and the
 * events of the deleted deliveries (each may now be purgeable).
 */
export async function purgeDeliveries(
  db: Db,
  listing: RetentionListing,
  integratorId: string,
  rows: readonly DeliveryRow[],
  rule: PurgeRule,
): Promise<ItemCounts & { eventIds: string[] }> {
  const deliveries = db.collection<DeliveryDoc>('deliveries');
  const ids = rows.map((r) => r.i);
  const docs = await findByIds(deliveries, ids, { projection: { status: 1, updatedAt: 1, attemptCount: 1 } });
  const ended = (d: (typeof docs)[number]) => !!d && TERMINAL.has(d.status) && d.updatedAt < rule.cutoff;
  const expired = rows.filter((_, n) => docs[n] && (rule.erase || ended(docs[n])));
  const condition = rule.erase ? {} : { status: { $in: [...terminalStatuses] }, updatedAt: { $lt: rule.cutoff } };
  const deleted = await deleteByIds(
    deliveries,
    expired.map((r) => r.i),
    condition,
  );
  const gone = deleted === expired.length ? expired : await notStored(db, 'deliveries', expired);
  const missing = rows.filter((_, n) => !docs[n]);
  const orphans = rule.erase ? missing : await notStored(db, 'events', missing, 'e');
  // Attempts after their delivery (a crash in between leaves a few entries by `_id`, never a delivery without them);
  // an orphan's count is unknown: its first attempts' ids are deleted, which a run that stopped half-way left.
  const countOf = new Map(rows.map((r, n) => [r.i, docs[n]?.attemptCount ?? ORPHAN_ATTEMPTS]));
  const attempts = await deleteByIds(
    db.collection<{ _id: string }>('attempts'),
    [...gone, ...orphans].flatMap((r) =>
      Array.from({ length: (countOf.get(r.i) ?? 0) + 1 }, (_, n) => attemptEntryId(r.i, n + 1)),
    ),
  );
  await listing.forget(integratorId, [...gone, ...orphans], []);
  return { deliveries: deleted, attempts, events: 0, eventIds: [...new Set(gone.map((r) => r.e))] };
}

/** The rows whose document (`_id` = `r[field]`) is not stored. */
async function notStored<R extends DeliveryRow>(
  db: Db,
  name: 'deliveries' | 'events',
  rows: readonly R[],
  field: 'i' | 'e' = 'i',
): Promise<R[]> {
  const found = await findByIds(
    db.collection<{ _id: string }>(name),
    rows.map((r) => r[field]),
    { projection: { _id: 1 } },
  );
  return rows.filter((_, n) => !found[n]);
}

/** The events among `eventIds` that have at least one stored delivery. */
async function eventsWithDeliveries(
  db: Db,
  listing: RetentionListing,
  integratorId: string,
  eventIds: readonly string[],
): Promise<Set<string>> {
  const rows = await listing.deliveriesOf(integratorId, eventIds);
  const stored = await findByIds(
    db.collection<DeliveryDoc>('deliveries'),
    rows.map((r) => r.i),
    { projection: { eventId: 1 } },
  );
  return new Set(stored.flatMap((d) => (d ? [d.eventId] : [])));
}

/**
 * Events among a walk's rows and `moreIds` (the events of deliveries just deleted) created before the cutoff that no
 * stored delivery names (with `erase`, all of them): deleted, then their listing rows (a row whose event is already
 * gone loses them too).
 */
export async function purgeEvents(
  db: Db,
  listing: RetentionListing,
  integratorId: string,
  rows: readonly EventRow[],
  moreIds: readonly string[],
  rule: PurgeRule,
): Promise<ItemCounts> {
  const byId = new Map<string, EventRow | null>(rows.map((r) => [r.i, r]));
  for (const id of moreIds) if (!byId.has(id)) byId.set(id, null);
  const ids = [...byId.keys()];
  const docs = await findByIds(db.collection<EventDoc>('events'), ids);
  const old = docs.filter(
    (d): d is EventDoc => d !== null && d.integratorId === integratorId && (rule.erase || d.createdAt < rule.cutoff),
  );
  const delivered = rule.erase
    ? new Set<string>()
    : await eventsWithDeliveries(
        db,
        listing,
        integratorId,
        old.map((d) => d._id),
      );
  const purgeable = old.filter((d) => !delivered.has(d._id));
  const events = await deleteByIds(
    db.collection<EventDoc>('events'),
    purgeable.map((d) => d._id),
  );
  const orphans = ids.flatMap((id, n) => {
    const row = byId.get(id);
    return !docs[n] && row ? [row] : [];
  });
  await listing.forget(integratorId, [], [...purgeable.map((d) => byId.get(d._id) ?? toRow(d)), ...orphans]);
  return { deliveries: 0, attempts: 0, events };
}
