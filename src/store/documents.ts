// The stored shape of every Herald collection, in one place. Dates are BSON dates; ids are uuid strings.
import type { EventRecord } from '../domain/event.js';
import type { HistoryEventType, NameableEventType } from '../domain/event-types.js';
import type { SealedKey } from '../crypto/key-encryption.js';
import type {
  GateWaitReason,
  Actor,
  DeliveryStatus,
  PauseReason,
  PostOutcome,
  ResponseSummary,
  TerminalReason,
} from '../domain/delivery-vocabulary.js';

/** `events`: one lifecycle (or webhook.test) event, owned by one integrator, exactly as the domain defines it. */
export type EventDoc = EventRecord;

/** `subscriptions`: a callback URL subscribed to event types. Deleted ones stay, with `deletedAt` set. */
export interface SubscriptionDoc {
  _id: string;
  integratorId: string;
  url: string;
  /**
   * 'all': every type of the spec's subscribable enum (eventTypes omitted or empty at create), never Herald's own;
   * otherwise a de-duplicated list, which may name Herald's own types.
   */
  eventTypes: 'all' | NameableEventType[];
  description: string | null;
  /** paused: new deliveries are made and held, none is attempted until resumed (docs/subscriptions.md). */
  status: 'enabled' | 'disabled' | 'paused';
  /** Why it is paused; absent or null unless paused. */
  pausedReason?: PauseReason | null;
  pausedAt?: Date | null;
  /** The key that signs new attempts (a `signing_keys` _id). */
  activeKeyId: string;
  createdAt: Date;
  updatedAt: Date;
  deletedAt: Date | null;
  /** Every signing key it ever had (`signing_keys` _ids), oldest first: read by `_id`. Absent in older records. */
  keyIds?: string[];
  /** Bumped by every change (PATCH, rotation, deletion); absent = 0. Lets the worker reuse what it read. */
  version?: number;
  /** fifo: its deliveries go one at a time in ingest order (docs/deliveries.md, "Ordered delivery"); absent = none. */
  ordering?: SubscriptionOrdering;
}

export type SubscriptionOrdering = 'fifo' | 'none';

/** One live subscription as the fan-out matches it (an entry of `subscription_index`). */
export interface SubscriptionIndexEntry {
  eventTypes: SubscriptionDoc['eventTypes'];
  status: SubscriptionDoc['status'];
  createdAt: Date;
  version: number;
  /** Absent = none. */
  ordering?: SubscriptionOrdering;
}

/**
 * `subscription_index`: per integrator (`_id` = integratorId), its live subscriptions by id — what ingestion needs to
 * match an event, in one read by `_id`. Kept by the subscriptions repository on every change.
 */
export interface SubscriptionIndexDoc {
  _id: string;
  entries: Record<string, SubscriptionIndexEntry>;
}

/** `signing_keys`: a subscription's P-256 key pairs; the private key sealed with the master key (AAD = subscription id). */
export interface SigningKeyDoc {
  _id: string;
  integratorId: string;
  subscriptionId: string;
  /** Compressed SEC1 point, 66 lowercase hex digits, no prefix. */
  publicKey: string;
  sealed: SealedKey;
  status: 'active' | 'inactive';
  createdAt: Date;
  deactivatedAt: Date | null;
}

/**
 * `deliveries`: one per (event, subscription), its `_id` derived from both (src/store/derived-ids.ts). Its latest
 * attempts live inside it, keyed by attempt number, so that recording an attempt and its effect is one write by `_id`;
 * older ones move to `attempts` (src/store/attempts-repo.ts), so the document stays small however many are made.
 */
export interface DeliveryDoc {
  _id: string;
  integratorId: string;
  subscriptionId: string;
  eventId: string;
  eventType: HistoryEventType;
  status: DeliveryStatus;
  attemptCount: number;
  createdAt: Date;
  updatedAt: Date;
  nextAttemptAt: Date | null;
  terminalReason: TerminalReason | null;
  lastResponseSummary: ResponseSummary | null;
  /** true while its run waits for its paused subscription to be resumed (no attempt is made); absent = false. */
  held?: boolean;
  /**
   * Why its run waits without a request until nextAttemptAt (a capacity guard: src/net/attempt-gate.ts; or its turn in
   * an ordered subscription, with no nextAttemptAt); null or absent when it does not. The next recorded attempt, hold
   * or cancellation clears it.
   */
  waitReason?: GateWaitReason | 'fifo_turn' | null;
  /** Its place in its ordered subscription's lane (src/store/fifo-lanes-repo.ts); absent when made without order. */
  fifoSeq?: number;
  /** Attempt number (as a string key) → attempt, the latest ATTEMPTS_IN_DELIVERY; absent until the first is recorded. */
  attempts?: Record<string, AttemptDoc>;
}

/** An attempt, inside its delivery (`attempts.<n>`) or moved out; its `_id` derived from the delivery and its number. */
export interface AttemptDoc {
  _id: string;
  integratorId: string;
  deliveryId: string;
  attemptNumber: number;
  /** Only requests made are recorded: `cancelled` is an outcome of the workflow's attempt, never a stored one. */
  outcome: PostOutcome;
  statusCode: number | null;
  error: string | null;
  latencyMs: number;
  responseSummary: ResponseSummary | null;
  signedAt: Date;
  /** The X-Service-Webhook-Timestamp sent, Unix seconds as a string. */
  signedTimestamp: string;
  signingKeyId: string;
  actor: Actor;
  /** The IP address connected to, or null when no connection was made. */
  address: string | null;
  createdAt: Date;
  /** Seconds the receiver asked to wait with Retry-After (429/503 only); absent or null when it asked none. */
  retryAfterSeconds?: number | null;
  /** Seconds the delivery waited (waits) after this attempt before the next; absent or null when none followed. */
  retryInSeconds?: number | null;
}

/** `endpoint_health`: per subscription (`_id`), what the worker needs to pause an endpoint that keeps failing. */
export interface EndpointHealthDoc {
  _id: string;
  /** The first failed attempt since the last 2xx; null while healthy. */
  failingSince: Date | null;
  /** Failed attempts since then. */
  failures: number;
  /** The last 2xx recorded (written at most once a minute per worker). */
  lastSuccessAt: Date | null;
}

/**
 * `attempt_stats`: one subscription's recorded attempts in one hour (`_id` `<subscriptionId>|<hour start, ms>`), what
 * the subscription's stats read (src/store/attempt-stats-repo.ts). Latencies are counted in fixed buckets
 * (src/domain/latency-buckets.ts: `l.<n>` answers at most LATENCY_BUCKET_EDGES_MS[n], the last one above).
 */
export interface AttemptStatsDoc {
  _id: string;
  integratorId: string;
  subscriptionId: string;
  hour: Date;
  attempts: number;
  succeeded: number;
  latencySumMs: number;
  latencyMaxMs: number;
  l: Record<string, number>;
  expiresAt: Date;
}
