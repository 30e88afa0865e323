// The event types, from Herald's own list (src/domain/event-types.ts, which imports nothing): what a subscription may
// name, and what the event history lists. The delivery statuses, as the API names them.
export {
  heraldEventTypes as HERALD_EVENT_TYPES,
  historyEventTypes as HISTORY_EVENT_TYPES,
  subscribableEventTypes as SUBSCRIBABLE_EVENT_TYPES,
} from '../../src/domain/event-types.js';

export const DELIVERY_STATUSES = ['pending', 'succeeded', 'failed', 'cancelled'] as const;
