// Herald's own Prometheus metrics: one registry per process (API or worker), ids never used as labels.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** Seconds: from 10 ms to 2 h, so a retry hours late still lands in a bucket of its own. */
const LAG_BUCKETS = [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800, 3600, 7200];
/** Seconds: one POST is bounded at ~15 s by the HTTP client. */
const ATTEMPT_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 15, 30];
const HTTP_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];

/** A label value from code-defined vocabularies only; anything else collapses to `other` (bounded cardinality). */
const word = (value: string | null | undefined): string =>
  value && /^[a-z][a-z0-9_]{0,39}$/.test(value) ? value : value ? 'other' : 'none';

/** `2xx` … `5xx`, or `none` when no response came back (transport failure, blocked address). */
export const statusClass = (statusCode: number | null): string =>
  statusCode === null || statusCode < 100 || statusCode > 599 ? 'none' : `${Math.floor(statusCode / 100)}xx`;

/** Where a lag is measured from: a first attempt from its event's ingest, a retry from its due time. */
export type LagKind = 'first' | 'retry';

export interface HeraldMetrics {
  /** The process's registry; null when metrics are off (every method is then a no-op). */
  readonly registry: Registry | null;
  eventIngested(): void;
  deliveriesCreated(count: number): void;
  deliveryFinished(status: string, terminalReason: string | null): void;
  attemptMade(outcome: string, statusCode: number | null, seconds: number): void;
  deliveryLag(kind: LagKind, seconds: number): void;
  /** A first attempt that did not find its event at once (the API stores it after starting the workflows). */
  eventWaited(result: 'stored_late' | 'not_stored'): void;
  authFailed(reason: string): void;
  httpRequest(method: string, route: string, statusCode: number, seconds: number): void;
  /** A scheduled attempt turned away by a capacity guard: it waits, nothing sent (src/net/attempt-gate.ts). */
  attemptWaited(reason: string): void;
  /** The gauge of deliveries waiting now, by reason, read from `count` at each scrape (one source per process). */
  watchWaiting(count: () => Record<string, number>): void;
}

export const disabledMetrics: HeraldMetrics = {
  registry: null,
  eventIngested: () => undefined,
  deliveriesCreated: () => undefined,
  deliveryFinished: () => undefined,
  attemptMade: () => undefined,
  deliveryLag: () => undefined,
  eventWaited: () => undefined,
  authFailed: () => undefined,
  httpRequest: () => undefined,
  attemptWaited: () => undefined,
  watchWaiting: () => undefined,
};

/** Every Herald metric on a fresh registry, with the Node.js process metrics beside them. */
export function createHeraldMetrics(options: { defaultMetrics?: boolean } = {}): HeraldMetrics {
  const registry = new Registry();
  if (options.defaultMetrics ?? true) collectDefaultMetrics({ register: registry });
  const registers = [registry];
  const events = new Counter({ name: 'herald_events_ingested_total', help: 'Events stored', registers });
  const created = new Counter({
    name: 'herald_deliveries_created_total',
    help: 'Delivery workflows started for newly stored events (one per matching subscription)',
    registers,
  });
  const finished = new Counter({
    name: 'herald_deliveries_finished_total',
    help: 'Deliveries that reached a final status, by status and terminal reason',
    labelNames: ['status', 'terminal_reason'] as const,
    registers,
  });
  const attempts = new Counter({
    name: 'herald_attempts_total',
    help: 'Delivery attempts (POSTs made or refused), by outcome and response status class',
    labelNames: ['outcome', 'status_class'] as const,
    registers,
  });
  const attemptSeconds = new Histogram({
    name: 'herald_attempt_duration_seconds',
    help: 'Time of one attempt POST, connect to response read',
    labelNames: ['outcome'] as const,
    buckets: ATTEMPT_BUCKETS,
    registers,
  });
  const lag = new Histogram({
    name: 'herald_delivery_lag_seconds',
    help: 'Attempt start minus its scheduled time (first attempt: event ingest; retry: its due time)',
    labelNames: ['attempt'] as const,
    buckets: LAG_BUCKETS,
    registers,
  });
  const eventWaits = new Counter({
    name: 'herald_first_attempt_event_waits_total',
    help: 'First attempts that did not find their event at once: stored_late (found after waiting), not_stored (retried)',
    labelNames: ['result'] as const,
    registers,
  });
  const authFailures = new Counter({
    name: 'herald_auth_failures_total',
    help: 'Rejected credentials, by reason (callers only ever see 401)',
    labelNames: ['reason'] as const,
    registers,
  });
  const http = new Histogram({
    name: 'herald_http_request_duration_seconds',
    help: 'API requests by route pattern, method and status code',
    labelNames: ['method', 'route', 'status_code'] as const,
    buckets: HTTP_BUCKETS,
    registers,
  });

  const waits = new Counter({
    name: 'herald_attempt_waits_total',
    help: 'Scheduled attempts a capacity guard turned away (no request, no attempt recorded: the delivery waits), by reason',
    labelNames: ['reason'] as const,
    registers,
  });
  let waitingNow: () => Record<string, number> = () => ({});
  new Gauge({
    name: 'herald_deliveries_waiting',
    help: 'Deliveries this process turned away whose wait has not run out yet, by reason',
    labelNames: ['reason'] as const,
    registers,
    collect() {
      for (const [reason, n] of Object.entries(waitingNow())) this.set({ reason: word(reason) }, n);
    },
  });

  return {
    registry,
    attemptWaited: (reason) => waits.inc({ reason: word(reason) }),
    watchWaiting(count) {
      waitingNow = count;
    },
    eventIngested: () => events.inc(),
    deliveriesCreated: (count) => created.inc(count),
    deliveryFinished: (status, reason) => finished.inc({ status: word(status), terminal_reason: word(reason) }),
    attemptMade(outcome, statusCode, seconds) {
      attempts.inc({ outcome: word(outcome), status_class: statusClass(statusCode) });
      attemptSeconds.observe({ outcome: word(outcome) }, seconds);
    },
    deliveryLag: (kind, seconds) => lag.observe({ attempt: kind }, Math.max(0, seconds)),
    eventWaited: (result) => eventWaits.inc({ result }),
    authFailed: (reason) => authFailures.inc({ reason: word(reason) }),
    httpRequest: (method, route, statusCode, seconds) =>
      http.observe({ method, route, status_code: String(statusCode) }, seconds),
  };
}
