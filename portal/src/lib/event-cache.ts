// Events seen in listings or read one by one, kept for their own page (with the exact text of their data).
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
