// The API has no GET for one event: find it in the listing, narrowed by what one of its deliveries tells.
import { apiGet, apiGetWithText, type Query } from '../api';
import { cachedEvent, rememberEvents, type CachedEvent } from './event-cache';
import { rawEventData } from './json-raw';
import type { DeliveryPage, EventPage } from '../types';

const PAGES = 4;

async function scan(query: Query, id: string): Promise<CachedEvent | null> {
  let cursor: string | null = null;
  for (let i = 0; i < PAGES; i++) {
    const res: { data: EventPage; text: string } = await apiGetWithText<EventPage>('/v1/query/events', {
      ...query,
      cursor,
      limit: 250,
    });
    rememberEvents(res.data.events, rawEventData(res.text));
    const hit = cachedEvent(id);
    if (hit) return hit;
    cursor = res.data.nextCursor;
    if (cursor === null) return null;
  }
  return null;
}

export async function findEvent(id: string): Promise<CachedEvent | null> {
  const known = cachedEvent(id);
  if (known) return known;
  // An event is stored before its deliveries: list its type up to just after its first delivery.
  const deliveries = await apiGet<DeliveryPage>('/v1/webhooks/deliveries', { eventId: id, limit: 250 });
  const oldest = deliveries.deliveries.at(-1);
  if (oldest) {
    const before = new Date(new Date(oldest.createdAt).getTime() + 1000).toISOString();
    const hit = await scan({ eventType: oldest.eventType, createdBefore: before }, id);
    if (hit) return hit;
  }
  return (await scan({}, id)) ?? (await scan({ eventType: 'webhook.test' }, id));
}
