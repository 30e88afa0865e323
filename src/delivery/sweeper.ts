import type { Store } from '../store/index.js';
import type { FanOut } from './fan-out.js';

export interface SweeperOptions {
  readonly store: Store;
  readonly fanOut: FanOut;
  /** An event younger than this may still be mid hand-off in the API: leave it alone. */
  readonly graceMs?: number;
  readonly intervalMs?: number;
  readonly batch?: number;
  readonly onError?: (err: unknown) => void;
}

/**
 * Repairs the hand-off of events whose fan-out never completed (the API died between storing an event and
 * starting its deliveries). Safe to run in every worker at once: each step of the hand-off is idempotent.
 */
export function createSweeper(options: SweeperOptions) {
  const { store, fanOut, graceMs = 30_000, intervalMs = 10_000, batch = 100, onError } = options;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<number> | undefined;

  async function sweepOnce(now = new Date()): Promise<number> {
    const stale = await store.events.findNotFannedOut(new Date(now.getTime() - graceMs), batch);
    let handedOff = 0;
    for (const event of stale) {
      // One event that keeps failing must not hold back the ones after it.
      try {
        await store.events.index(event); // the listing write may have been lost with the hand-off (idempotent)
        await fanOut.handOff(event);
        handedOff += 1;
      } catch (err) {
        onError?.(err);
      }
    }
    return handedOff;
  }

  return {
    sweepOnce,
    start(): void {
      timer = setInterval(() => {
        if (running) return;
        running = sweepOnce().finally(() => (running = undefined));
        running.catch((err: unknown) => onError?.(err));
      }, intervalMs);
      timer.unref();
    },
    async stop(): Promise<void> {
      clearInterval(timer);
      await running?.catch(() => undefined);
    },
  };
}
