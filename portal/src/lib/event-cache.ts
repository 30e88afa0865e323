// Events seen in listings, kept for their own page: the API has no GET for a single event.
import type { EventItem } from '../types';

export interface CachedEvent {
  event: EventItem;
  /** The exact text of `data` as received, when it could be cut out of the answer. */
  raw: string | null;
}

const cache = new Map<string, CachedEvent>();

export function rememberEvents(events: EventItem[], raw: Map<string, string>): void {
  for (const event of events) cache.set(event.id, { event, raw: raw.get(event.id) ?? null });
}

export const cachedEvent = (id: string): CachedEvent | undefined => cache.get(id);
