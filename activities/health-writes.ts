import type { EndpointHealthDoc } from '../src/store/documents.js';
import type { HealthRepo } from '../src/store/health-repo.js';

/** The failures waiting for the next write of one subscription's health document, and that write's answer. */
interface Batch {
  count: number;
  first: Date;
  readonly written: Promise<EndpointHealthDoc>;
}

interface Lane {
  /** The last write asked for; settles once every earlier one has. */
  tail: Promise<void>;
  /** Failures not yet being written: the next failure joins them. */
  open: Batch | null;
}

/**
 * This worker's writes of the endpoint-health documents: per subscription one at a time, in the order they were
 * asked for, and the failures that arrive while a write is in flight counted together by the next one (a single
 * `$inc`). An outage makes every attempt to the endpoint fail at once; without this each failure is a write of the
 * same document, which the MongoDB-wire server runs one at a time (docs/subscriptions.md, "Endpoint health").
 */
export function createHealthWrites(health: Pick<HealthRepo, 'failed' | 'succeeded'>) {
  const lanes = new Map<string, Lane>();

  function after<T>(id: string, lane: Lane, write: () => Promise<T>): Promise<T> {
    const run = lane.tail.then(write);
    const tail = run.then(
      () => undefined,
      () => undefined,
    );
    lane.tail = tail;
    void tail.then(() => {
      if (lanes.get(id)?.tail === tail) lanes.delete(id); // idle: nothing asked since
    });
    return run;
  }

  const laneOf = (id: string): Lane => {
    let lane = lanes.get(id);
    if (!lane) lanes.set(id, (lane = { tail: Promise.resolve(), open: null }));
    return lane;
  };

  return {
    /** Counts a failed attempt; answers the document as written by the write that counted it. */
    failed(subscriptionId: string, at: Date): Promise<EndpointHealthDoc> {
      const lane = laneOf(subscriptionId);
      const open = lane.open;
      if (open) {
        open.count++;
        if (at < open.first) open.first = at;
        return open.written;
      }
      const batch: Batch = {
        count: 1,
        first: at,
        written: after(subscriptionId, lane, () => {
          if (lane.open === batch) lane.open = null; // from now on, failures wait for the next write
          return health.failed(subscriptionId, batch.first, batch.count);
        }),
      };
      lane.open = batch;
      return batch.written;
    },

    /** A 2xx, written after the failures asked for before it (which it then clears). */
    succeeded(subscriptionId: string, at: Date): Promise<void> {
      const lane = laneOf(subscriptionId);
      lane.open = null; // failures after this 2xx are counted by a write after it
      return after(subscriptionId, lane, () => health.succeeded(subscriptionId, at));
    },

    /** Subscriptions with a write in flight or waiting (for tests). */
    get busy(): number {
      return lanes.size;
    },
  };
}
