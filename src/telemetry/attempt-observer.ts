// What the attempt activity reports about each delivery: metrics and one log line per attempt and per ending,
// every line carrying the five ids that explain it (docs/operations-metrics.md: logs).
import type { HeraldMetrics } from './metrics.js';

/** The ids every log line about a delivery carries. */
export interface DeliveryLogContext {
  readonly deliveryId: string;
  readonly eventId: string;
  readonly subscriptionId: string;
  readonly integratorId: string;
  readonly attemptNumber: number;
}

/** A first attempt that did not find its event at once: found after waiting, or not yet (an activity retry). */
export type EventWait = 'stored_late' | 'not_stored';

export interface AttemptObserver {
  /** Just before the POST; `scheduledAt` (null: not on the schedule, e.g. a manual retry) yields a lag sample. */
  started(ctx: DeliveryLogContext, scheduledAt: Date | null, firstAttempt: boolean): void;
  made(ctx: DeliveryLogContext, attempt: { outcome: string; statusCode: number | null; latencyMs: number }): void;
  finished(ctx: DeliveryLogContext, status: string, terminalReason: string | null): void;
  eventWaited(ctx: DeliveryLogContext, result: EventWait): void;
  /** A scheduled attempt a capacity guard turned away: the delivery waits, nothing was sent. */
  waited(ctx: DeliveryLogContext, reason: string): void;
}

type InfoLogger = { info(obj: object, msg: string): void };

export function createAttemptObserver(deps: {
  metrics: HeraldMetrics;
  logger: InfoLogger;
  now?: () => number;
}): AttemptObserver {
  const { metrics, logger, now = Date.now } = deps;
  return {
    started(ctx, scheduledAt, firstAttempt) {
      if (scheduledAt === null) return;
      const lagSeconds = (now() - scheduledAt.getTime()) / 1000;
      metrics.deliveryLag(firstAttempt ? 'first' : 'retry', lagSeconds);
      logger.info({ ...ctx, lagMs: Math.round(lagSeconds * 1000) }, 'attempt started');
    },
    made(ctx, attempt) {
      metrics.attemptMade(attempt.outcome, attempt.statusCode, attempt.latencyMs / 1000);
      logger.info({ ...ctx, ...attempt }, 'attempt made');
    },
    finished(ctx, status, terminalReason) {
      metrics.deliveryFinished(status, terminalReason);
      logger.info({ ...ctx, status, terminalReason }, 'delivery finished');
    },
    eventWaited(ctx, result) {
      metrics.eventWaited(result);
      logger.info({ ...ctx, result }, 'first attempt waited for its event');
    },
    waited(ctx, reason) {
      metrics.attemptWaited(reason);
      logger.info({ ...ctx, reason }, 'attempt waits: nothing sent');
    },
  };
}
