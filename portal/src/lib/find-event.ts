// One event by its id (GET /v1/query/events/{id}), with the exact text of its data; null when there is none (404).
import { ApiError, apiGetWithText } from '../api';
import { cachedEvent, rememberEvents, type CachedEvent } from './event-cache';
import { rawEventData } from './json-raw';
import type { EventItem } from '../types';

export async function findEvent(id: string): Promise<CachedEvent | null> {
  const known = cachedEvent(id);
  if (known) return known;
  try {
    const res = await apiGetWithText<EventItem>(`/v1/query/events/${encodeURIComponent(id)}`);
    // The item's text is a listing's item: the same cutter finds its data.
    rememberEvents([res.data], rawEventData(`{"events":[${res.text}]}`));
    return cachedEvent(id) ?? null;
  } catch (err) {
    if (err instanceof ApiError && err.status === 404) return null;
    throw err;
  }
}
