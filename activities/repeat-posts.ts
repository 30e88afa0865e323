import { REPEAT_POSTS_MAX } from '../src/domain/attempt-bounds.js';
import type { DeliveryDoc } from '../src/store/documents.js';
import type { Store } from '../src/store/index.js';
import type { AttemptObserver, DeliveryLogContext } from '../src/telemetry/attempt-observer.js';
import type { AttemptInput, AttemptResult } from '../workflows/types.js';

export interface RepeatPostDeps {
  readonly store: Store;
  readonly now: () => Date;
  readonly logError: (message: string, fields: Record<string, unknown>) => void;
  readonly observer?: AttemptObserver | undefined;
  /** Repeated POSTs allowed per attempt (default REPEAT_POSTS_MAX). */
  readonly max?: number | undefined;
}

/**
 * Bounds the POSTs of an attempt whose record never follows. Temporal retries a failed activity without limit, and
 * a call that POSTed but could not record the answer (a record the database refuses, a worker lost) fails: its
 * retry, finding the attempt unrecorded, would POST again — forever, if the record keeps failing. So a retried call
 * counts its POST durably (one write by `_id`, before the request: a first call, the hot path, writes nothing) and,
 * past `max` repeats, sends nothing more: the delivery fails `recording_failed` and the run ends. Answers null when
 * the POST may go, else the result to return.
 */
export function createRepeatPostGuard(deps: RepeatPostDeps) {
  const { store, now, logError, observer, max = REPEAT_POSTS_MAX } = deps;
  return async function guardRepeat(
    delivery: DeliveryDoc,
    input: AttemptInput,
    ctx: DeliveryLogContext,
  ): Promise<AttemptResult | null> {
    const repeats = await store.attempts.countRepeatPost(delivery._id, input.attemptNumber);
    if (repeats <= max) return null;
    logError('attempt not recorded after repeated POSTs: delivery failed without another request', {
      ...ctx,
      repeatedPosts: repeats - 1,
    });
    const deliveryStatus = await store.deliveries.fail(delivery, 'recording_failed', now());
    observer?.finished(
      ctx,
      deliveryStatus,
      deliveryStatus === 'failed' ? 'recording_failed' : 'cancelled_during_attempt',
    );
    return {
      attemptId: null,
      attemptNumber: input.attemptNumber,
      outcome: 'recording_failed',
      statusCode: null,
      retryInSeconds: null,
      deliveryStatus,
    };
  };
}
