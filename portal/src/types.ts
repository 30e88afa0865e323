// The shapes of the integrator REST API (docs/api.md) that the portal reads.

export type Scope = 'read' | 'manage';

export interface Session {
  integratorId: string;
  scope: Scope;
  expiresAt: string;
  csrfToken: string;
}

export interface ApiErrorBody {
  error: string;
  status: number;
  message?: string;
}

export interface SubscriptionKey {
  keyId: string;
  publicKey: string;
  status: 'active' | 'inactive';
  createdAt: string;
}

export type SubscriptionStatus = 'enabled' | 'disabled' | 'paused';

/** fifo: deliveries one at a time, in ingest order; none: any order (docs/api.md, SubscriptionOrdering). */
export type SubscriptionOrdering = 'fifo' | 'none';

export interface Subscription {
  id: string;
  url: string;
  eventTypes: string[];
  description: string | null;
  status: SubscriptionStatus;
  pausedReason: 'manual' | 'endpoint_gone' | 'endpoint_unhealthy' | 'delivery_failed' | null;
  pausedAt: string | null;
  ordering: SubscriptionOrdering;
  keyId: string;
  publicKey: string;
  createdAt: string;
  updatedAt: string;
  keys: SubscriptionKey[];
}

export interface SubscriptionPage {
  subscriptions: Subscription[];
  nextCursor: string | null;
}

export interface ResponseSummary {
  status: number;
  headers: Record<string, string>;
  body: string;
  truncated: boolean;
}

export type DeliveryStatus = 'pending' | 'succeeded' | 'failed' | 'cancelled';

export interface Delivery {
  id: string;
  subscriptionId: string;
  eventId: string;
  eventType: string;
  status: DeliveryStatus;
  attemptCount: number;
  createdAt: string;
  updatedAt: string;
  nextAttemptAt: string | null;
  terminalReason: string | null;
  lastResponseSummary: ResponseSummary | null;
  held: boolean;
  waitReason: 'subscription_paused' | 'endpoint_unresponsive' | 'integrator_busy' | 'fifo_turn' | null;
}

export interface Attempt {
  id: string;
  deliveryId: string;
  attemptNumber: number;
  outcome: string;
  signedAt: string;
  signedTimestamp: string;
  createdAt: string;
  signingKeyId: string;
  statusCode: number | null;
  error: string | null;
  latencyMs: number;
  responseSummary: ResponseSummary | null;
  actor: 'system' | 'manual' | 'test';
  address: string | null;
  retryAfterSeconds: number | null;
  retryInSeconds: number | null;
}

export interface DeliveryWithAttempts extends Delivery {
  attempts: Attempt[];
  attemptsNextAfter: number | null;
}

export interface DeliveryPage {
  deliveries: Delivery[];
  nextCursor: string | null;
}

export interface AttemptPage {
  attempts: Attempt[];
  nextAfter: number | null;
}

export interface EventItem {
  id: string;
  eventType: string;
  occurredAt: string;
  livemode: boolean;
  payloadVersion: number;
  integratorId: string;
  accountId: string | null;
  userId: string | null;
  entityId: string | null;
  beneficiaryId: string | null;
  transactionId: string | null;
  provider: string | null;
  providerEventId: string | null;
  data: unknown;
  createdAt: string;
}

export interface EventPage {
  events: EventItem[];
  nextCursor: string | null;
}

export interface TestDeliveryResponse {
  event: { id: string; payload: unknown };
  delivery: Delivery;
  attempt: Attempt;
}

export type CampaignState = 'running' | 'paused' | 'cancelled' | 'completed';

export interface RecoveryCampaign {
  id: string;
  subscriptionId: string;
  since: string;
  until: string;
  statuses: ('failed' | 'cancelled')[];
  ratePerSecond: number;
  state: CampaignState;
  total: number;
  requested: number;
  succeeded: number;
  failed: number;
  skipped: number;
  done: number;
}

/** GET /v1/webhooks/subscriptions/{id}/stats, as its zod schema defines it (src/api/schemas/stats.ts). */
export type { SubscriptionStats } from '../../src/api/schemas/stats.js';
