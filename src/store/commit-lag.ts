import type { FastifyBaseLogger } from 'fastify';
import type { EventDoc } from './documents.js';
import type { EventsRepo } from './events-repo.js';

/**
 * The most time that may pass between an event's `createdAt` and the moment it is visible in the listing. An event
 * whose insert is acknowledged later than this is given a fresh `createdAt` (see boundCommitLag).
 */
export const MAX_COMMIT_LAG_MS = 2_000;

/**
 * The overlap a client polling `GET /v1/query/events?createdAfter=` must keep: poll from the newest `createdAt` it
 * has seen minus this, and drop ids it already has. Sufficient while every event is visible within
 * MAX_COMMIT_LAG_MS of its `createdAt` and API instances' clocks differ by less than (overlap − lag) / 2 = 4 s.
 */
export const POLL_OVERLAP_SEC = 10;

/**
 * Keeps "visible within MAX_COMMIT_LAG_MS of createdAt" true for an event just inserted. An acknowledged write is
 * committed, so when the acknowledgement came within the bound, so did the commit. When it did not, a concurrent
 * ingest may have committed a newer event first and a poller may have moved past this one: its `createdAt` is moved
 * to now, by `_id`, so that the poller's overlap finds it again (it may then see it twice, never not at all).
 * One repair at most: repeating it while the database is late only adds writes to a database that is already late
 * (the chaos run's feedback loop, docs/chaos.md). A repair that is itself late still leaves the event within
 * the poll overlap as long as that one write plus the listing write take less than POLL_OVERLAP_SEC minus twice the
 * clock skew; the ingest gate (src/api/ingest-gate.ts) bounds how late they can be.
 */
export async function boundCommitLag(
  events: Pick<EventsRepo, 'collection'>,
  event: EventDoc,
  log: Pick<FastifyBaseLogger, 'warn' | 'error'>,
  now: () => number = Date.now,
): Promise<EventDoc> {
  const lagMs = now() - event.createdAt.getTime();
  if (lagMs <= MAX_COMMIT_LAG_MS) return event;
  const createdAt = new Date(now());
  log.warn({ eventId: event._id, lagMs }, 'late event commit');
  await events.collection.updateOne({ _id: event._id }, { $set: { createdAt } });
  const repairMs = now() - createdAt.getTime();
  if (repairMs > MAX_COMMIT_LAG_MS) log.error({ eventId: event._id, repairMs }, 'late event commit repaired late');
  return { ...event, createdAt };
}
