import type { Store } from '../src/store/index.js';

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
  };
}

export type Activities = ReturnType<typeof createActivities>;
