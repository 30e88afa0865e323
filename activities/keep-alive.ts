import { setTimeout as sleep } from 'node:timers/promises';
import { Context } from '@temporalio/activity';
import { ATTEMPT_HEARTBEAT_EVERY_MS, ATTEMPT_STORE_BUDGET_MS } from '../src/domain/attempt-bounds.js';

/** The running activity's heartbeat; null outside a worker (a test calling the activity directly). */
export function currentHeartbeat(): (() => void) | null {
  try {
    const context = Context.current();
    return () => context.heartbeat();
  } catch {
    return null;
  }
}

/**
 * Runs `work` while heartbeating every ATTEMPT_HEARTBEAT_EVERY_MS: while the heartbeats go on, Temporal knows the
 * attempt is alive; once they stop (worker killed -9), it retries the attempt after the heartbeat timeout instead of
 * the whole start-to-close timeout. A quick attempt ends before the first heartbeat and costs Temporal nothing.
 */
export async function withHeartbeats<T>(heartbeat: (() => void) | null, work: () => Promise<T>): Promise<T> {
  if (!heartbeat) return await work();
  const timer = setInterval(heartbeat, ATTEMPT_HEARTBEAT_EVERY_MS);
  try {
    return await work();
  } finally {
    clearInterval(timer);
  }
}

const RECORD_RETRY_WAITS_MS = [50, 100, 200, 400, 800, 1600, 3200];

/**
 * Writes a sent attempt's record, retried in place (the write is an idempotent `$set` by `_id`) for up to
 * ATTEMPT_STORE_BUDGET_MS: a database hiccup after the receiver answered must not fail the activity, whose retry
 * would POST the same delivery again.
 */
export async function recordPersistently<T>(write: () => Promise<T>, budgetMs = ATTEMPT_STORE_BUDGET_MS): Promise<T> {
  const giveUpAt = Date.now() + budgetMs;
  for (let i = 0; ; i += 1) {
    try {
      return await write();
    } catch (err) {
      const wait = RECORD_RETRY_WAITS_MS[Math.min(i, RECORD_RETRY_WAITS_MS.length - 1)]!;
      if (Date.now() + wait >= giveUpAt) throw err;
      await sleep(wait);
    }
  }
}
