import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { HttpError, retryAfterSeconds } from './errors.js';

/**
 * Admission control of the event ingest (docs/events.md, "Load shedding"). At most `concurrency` ingests run at once
 * per API instance; up to `queue` more wait their turn, integrators in turn and each one's in arrival order, each for
 * `maxWaitMs` at most; beyond that
 * an ingest is answered 503 `overloaded` with Retry-After, before anything is read or written. So the database never
 * holds more of this instance's ingests than it serves in a few seconds, and a backlog (producers retrying after a
 * restart of a dependency) cannot grow without limit: a producer retries later instead.
 */
export interface IngestGate {
  /**
   * Waits for a slot, in turn with the other `key`s (integrators) that wait; resolves with its release (call it
   * exactly once, when the ingest ends), or null when the
   * caller went away (`gone()` true once its turn came) — then no slot is held. Throws the 503 when the queue is
   * full, or when no slot came within `maxWaitMs`.
   */
  enter(gone?: () => boolean, key?: string): Promise<(() => void) | null>;
  /** Ingests running and waiting now. */
  readonly running: number;
  readonly waiting: number;
}

export interface IngestGateOptions {
  concurrency: number;
  queue: number;
  /**
   * The longest an ingest waits for a slot before it is shed too (default 2 s): a long wait only makes producers
   * time out and send again while their first request still waits, so the queue fills with requests nobody awaits.
   */
  maxWaitMs?: number;
  /** Seconds a shed producer is asked to wait (Retry-After). */
  retryAfterSec?: number;
  /**
   * Ingests of one key (integrator) running at once (default: `concurrency`). A burst of one integrator then keeps
   * no more than this many of its workflow starts and inserts in front of everybody else's at Temporal and the
   * database, which serve them in arrival order; its excess waits here, where integrators take turns.
   */
  perKeyConcurrency?: number;
}

/** The 503 a shed ingest answers, in the error shape (no message). */
export const overloaded = (retryAfterSec: number): HttpError =>
  new HttpError(503, 'overloaded', undefined, { 'retry-after': String(retryAfterSeconds(retryAfterSec)) });

interface Waiter {
  admit(): void;
  timer: NodeJS.Timeout;
}

export function createIngestGate(options: IngestGateOptions): IngestGate {
  const { concurrency, queue, maxWaitMs = 2_000, retryAfterSec = 1 } = options;
  const perKeyRunning = Math.max(1, Math.min(concurrency, options.perKeyConcurrency ?? concurrency));
  // One producer (the platform) publishes for every integrator: waiting ingests queue per integrator and a freed slot
  // goes to the integrators in turn (a Map keeps insertion order: the one served moves to the back), so one
  // integrator's burst waits behind itself, not in front of everybody (issue 32). No key may hold more than half of
  // the queue, so a burst cannot shed the others either, nor more than `perKeyConcurrency` of the running slots.
  const perKey = Math.max(1, Math.ceil(queue / 2));
  let running = 0;
  let waiting = 0;
  const queues = new Map<string, Waiter[]>();
  const runningOf = new Map<string, number>();
  const count = (key: string, by: number) => {
    const n = (runningOf.get(key) ?? 0) + by;
    if (n > 0) runningOf.set(key, n);
    else runningOf.delete(key);
  };
  const mayRun = (key: string) => (runningOf.get(key) ?? 0) < perKeyRunning;

  // A slot of `key` ends: it passes straight to the first key in turn that waits and may run one more, or is freed.
  const release = (key: string) => {
    count(key, -1);
    for (const [next, list] of queues) {
      if (!mayRun(next)) continue;
      const waiter = list.shift();
      queues.delete(next);
      if (list.length > 0) queues.set(next, list);
      if (!waiter) continue;
      waiting -= 1;
      clearTimeout(waiter.timer);
      count(next, 1);
      waiter.admit();
      return;
    }
    running -= 1;
  };
  const slot = (key: string) => {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      release(key);
    };
  };

  return {
    get running() {
      return running;
    },
    get waiting() {
      return waiting;
    },
    async enter(gone = () => false, key = '') {
      if (running < concurrency && mayRun(key)) {
        running += 1;
        count(key, 1);
        return slot(key);
      }
      const list = queues.get(key) ?? [];
      if (waiting >= queue || list.length >= perKey) throw overloaded(retryAfterSec);
      await new Promise<void>((admit, shed) => {
        const waiter: Waiter = {
          admit,
          timer: setTimeout(() => {
            list.splice(list.indexOf(waiter), 1);
            if (list.length === 0 && queues.get(key) === list) queues.delete(key);
            waiting -= 1;
            shed(overloaded(retryAfterSec));
          }, maxWaitMs),
        };
        list.push(waiter);
        if (!queues.has(key)) queues.set(key, list);
        waiting += 1;
      });
      if (!gone()) return slot(key);
      release(key); // its client left while it waited: hand the slot on, do no work for nobody
      return null;
    },
  };
}

/**
 * A route handler run inside the gate: its slot is held until the handler's work ends (not merely until its client
 * leaves), and a request whose client left while it waited is answered the 503 without doing anything.
 */
export function gated<Req extends FastifyRequest, Rep extends FastifyReply, R>(
  gate: IngestGate,
  keyOf: (request: Req) => string,
  handler: (this: FastifyInstance, request: Req, reply: Rep) => Promise<R>,
): (this: FastifyInstance, request: Req, reply: Rep) => Promise<R> {
  return async function (this: FastifyInstance, request: Req, reply: Rep): Promise<R> {
    const leave = await gate.enter(() => request.raw.socket?.destroyed === true, keyOf(request));
    if (!leave) throw overloaded(1);
    try {
      return await handler.call(this, request, reply);
    } finally {
      leave();
    }
  };
}
