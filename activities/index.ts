import type { Store } from '../src/store/index.js';
import type { AttemptInput, AttemptResult } from '../workflows/types.js';

export interface ActivityDeps {
  readonly store: Store;
}

/** Every activity, built over its dependencies; workflows import only this function's type. */
export function createActivities(_deps: ActivityDeps) {
  return {
    /** Does nothing but answer: the baseline activity. */
    async noop(input: string): Promise<string> {
      return input;
    },
    /** Placeholder for activities/attempt-delivery.ts: sign, POST, record the attempt, update the delivery. */
    async attemptDelivery(_input: AttemptInput): Promise<AttemptResult> {
      throw new Error('not implemented');
    },
  };
}

export type Activities = ReturnType<typeof createActivities>;
