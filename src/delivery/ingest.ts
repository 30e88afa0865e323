import { newEventDoc } from '../domain/event-record.js';
import type { EventPayloadFields } from '../domain/event-payload.js';
import { boundCommitLag } from '../store/commit-lag.js';
import type { EventDoc } from '../store/documents.js';
import type { Store } from '../store/index.js';
import type { FanOut } from './fan-out.js';

export type IngestVerdict =
  /** `created`: stored now (201), else the same event was stored before (200); `deliveries`: started by this call. */
  | { ok: true; created: boolean; event: EventDoc; deliveries: number }
  | { ok: false; reason: 'unknown_integrator' }
  /** An event with this id exists with other content. */
  | { ok: false; reason: 'conflict' };

/**
 * Takes in a published event, idempotent on its id (docs/events.md). Everything is validated before anything is
 * written; then the deliveries are handed off before the event is stored, so nothing is answered 2xx before its
 * deliveries are durable, and a re-submission starts nothing twice (its workflows end at once for subscriptions newer
 * than the stored event). Pollers of createdAfter rely on every event being visible soon after its createdAt: the
 * commit-lag repair runs before the event is filed into the listing, so the listing holds its final createdAt.
 */
export async function ingestEvent(
  deps: { store: Store; fanOut: FanOut },
  fields: EventPayloadFields,
  log: Parameters<typeof boundCommitLag>[2],
): Promise<IngestVerdict> {
  const { store, fanOut } = deps;
  if (!(await store.integrators.known(fields.integratorId))) return { ok: false, reason: 'unknown_integrator' };
  const doc = newEventDoc(fields);
  const started = await fanOut.handOff(doc);
  const { created, event } = await store.events.insertOnce(
    doc,
    (stored) => boundCommitLag(store.events, stored, log),
    started,
  );
  if (!created && (event.body !== doc.body || event.integratorId !== doc.integratorId)) {
    return { ok: false, reason: 'conflict' };
  }
  return { ok: true, created, event, deliveries: created ? started.length : 0 };
}
