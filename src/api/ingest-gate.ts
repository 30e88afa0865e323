import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { HttpError } from './errors.js';

/**
 * Admission control of the event ingest (docs/events.md, "Load shedding"). At most `concurrency` ingests run at once
 * per API instance; up to `queue` more wait their turn in arrival order, each for `maxWaitMs` at most; beyond that
 * an ingest is answered 503 `overloaded` with Retry-After, before anything is read or written. So the database never
 * holds more of this instance's ingests than it serves in a few seconds, and a backlog (producers retrying after a
 * restart of a dependency) cannot grow without limit: a producer retries later instead.
 */
export interface IngestGate {
  /**
   * Waits for a slot; resolves with its release (call it exactly once, when the ingest ends), or null when the
   * caller went away (`gone()` true once its turn came) — then no slot is held. Throws the 503 when the queue is
   * full, or when no slot came within `maxWaitMs`.
   */
  enter(gone?: () => boolean): Promise<(() => void) | null>;
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
}

/** The 503 a shed ingest answers, in the error shape (no message). */
export const overloaded = (retryAfterSec: number): HttpError =>
  new HttpError(503, 'overloaded', undefined, { 'retry-after': String(Math.max(1, Math.ceil(retryAfterSec))) });

interface Waiter {
  admit(): void;
  timer: NodeJS.Timeout;
}

export function createIngestGate(options: IngestGateOptions): IngestGate {
  const { concurrency, queue, maxWaitMs = 2_000, retryAfterSec = 1 } = options;
  let running = 0;
  const waiters: Waiter[] = [];

  const release = () => {
    const next = waiters.shift();
    if (!next) {
      running -= 1;
      return;
    }
    clearTimeout(next.timer);
    next.admit(); // the slot passes straight to the next in line
  };
  const slot = () => {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      release();
    };
  };

  return {
    get running() {
      return running;
    },
    get waiting() {
      return waiters.length;
    },
    async enter(gone = () => false) {
      if (running < concurrency) {
        running += 1;
        return slot();
      }
      if (waiters.length >= queue) throw overloaded(retryAfterSec);
      await new Promise<void>((admit, shed) => {
        const waiter: Waiter = {
          admit,
          timer: setTimeout(() => {
            waiters.splice(waiters.indexOf(waiter), 1);
            shed(overloaded(retryAfterSec));
          }, maxWaitMs),
        };
        waiters.push(waiter);
      });
      if (!gone()) return slot();
      release(); // its client left while it waited: hand the slot on, do no work for nobody
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
  handler: (this: FastifyInstance, request: Req, reply: Rep) => Promise<R>,
): (this: FastifyInstance, request: Req, reply: Rep) => Promise<R> {
  return async function (this: FastifyInstance, request: Req, reply: Rep): Promise<R> {
    const leave = await gate.enter(() => request.raw.socket?.destroyed === true);
    if (!leave) throw overloaded(1);
    try {
      return await handler.call(this, request, reply);
    } finally {
      leave();
    }
  };
}
