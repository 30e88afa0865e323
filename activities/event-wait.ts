import { setTimeout as sleep } from 'node:timers/promises';
import { ApplicationFailure } from '@temporalio/activity';
import type { EventDoc } from '../src/store/documents.js';
import type { Store } from '../src/store/index.js';
import type { AttemptObserver, DeliveryLogContext } from '../src/telemetry/attempt-observer.js';
import { DELIVERY_NOT_FOUND } from '../workflows/messages.js';
import type { HandOff } from '../workflows/types.js';

/**
 * A first attempt may start before the API has stored its event (the API stores it right after starting the
 * workflow). It reads the event by `_id` again after each of these waits, then every EVENT_POLL_MS, for up to
 * EVENT_WAIT_PER_CALL_MS; then the call fails EventNotStored and Temporal runs it again after EVENT_RETRY_DELAY_MS,
 * not after the retry policy's growing back-off, so an event stored late is found within about a poll step whatever
 * the lag. Bounded per call (the call stays well within its timeouts and frees its slot) and in all: a hand-off older
 * than EVENT_NOT_STORED_LIMIT_MS whose event is still missing (its ingest failed) fails the run without a request.
 */
const EVENT_FIRST_WAITS_MS = [10, 20, 40, 80];
const EVENT_POLL_MS = 150;
const EVENT_WAIT_PER_CALL_MS = 2_000;
export const EVENT_RETRY_DELAY_MS = 250;
export const EVENT_NOT_STORED_LIMIT_MS = 120_000;

export interface EventWaitDeps {
  readonly store: Pick<Store, 'events'>;
  readonly now: () => Date;
  readonly activityAttempt: () => number;
  readonly observer?: AttemptObserver;
}

/** How an attempt reads its event (docs/deliveries.md, "From event to delivery"). */
export function createEventWait(deps: EventWaitDeps) {
  const { store, now, activityAttempt, observer } = deps;
  return eventOf;

  /** The event; a handed-off one may still be on its way into the store (the API stores it after the start). */
  async function eventOf(ctx: DeliveryLogContext, handOff: HandOff | undefined): Promise<EventDoc> {
    const id = ctx.eventId;
    const waiting =
      handOff !== undefined && now().getTime() - Date.parse(handOff.createdAt) < EVENT_NOT_STORED_LIMIT_MS;
    const giveUpAt = Date.now() + (waiting ? EVENT_WAIT_PER_CALL_MS : 0);
    for (let i = 0; ; i++) {
      const event = await store.events.findById(id);
      if (event) {
        if (handOff && (i > 0 || activityAttempt() > 1)) observer?.eventWaited(ctx, 'stored_late');
        return event;
      }
      const wait = EVENT_FIRST_WAITS_MS[i] ?? EVENT_POLL_MS;
      if (Date.now() + wait > giveUpAt) break;
      await sleep(wait);
    }
    if (waiting) {
      observer?.eventWaited(ctx, 'not_stored');
      throw ApplicationFailure.create({
        type: 'EventNotStored',
        message: `event ${id} is not stored (yet)`,
        nextRetryDelay: EVENT_RETRY_DELAY_MS,
      });
    }
    throw ApplicationFailure.nonRetryable(`event ${id} not found`, DELIVERY_NOT_FOUND);
  }
}
