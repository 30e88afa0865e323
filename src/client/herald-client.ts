import { createPrivateKey, randomUUID, type KeyObject } from 'node:crypto';
import type {
  CreateSubscriptionInput,
  Subscription,
  SubscriptionKey,
  SubscriptionKeyPage,
  SubscriptionPage,
  SubscriptionStatus,
  UpdateSubscriptionInput,
} from '../api/schemas/subscriptions.js';
import { compressedHexOf } from '../crypto/p256.js';
import { requestSigningInput, signRequest } from '../crypto/request-signature.js';
import { readResponse, withQuery, type QueryValue } from './http.js';
import { withRetries } from './retries.js';
import { createSignedSeconds } from './signed-seconds.js';
import type { EventFilters, EventHistoryItem, EventPage } from './events.js';
import type {
  AttemptPage,
  Delivery,
  DeliveryAttempt,
  DeliveryFilters,
  DeliveryPage,
  DeliveryWithAttempts,
  TestDeliveryResponse,
} from '../api/schemas/deliveries.js';
import type { DeliverySummary, RecoverInput, RecoveryCampaign } from '../api/schemas/campaigns.js';
import type { PortalLink, PortalLinkOptions } from './admin-client.js';

export type * from './api-types.js';
import type { SubscriptionStats } from '../api/schemas/stats.js';

const DELIVERIES = '/v1/webhooks/deliveries';
const deliveryPath = (id: string): string => `${DELIVERIES}/${encodeURIComponent(id)}`;
const SUBSCRIPTIONS = '/v1/webhooks/subscriptions';
const subscriptionPath = (id: string): string => `${SUBSCRIPTIONS}/${encodeURIComponent(id)}`;
const campaignPath = (id: string): string => `/v1/webhooks/campaigns/${encodeURIComponent(id)}`;

export interface HeraldClientOptions {
  /** e.g. `https://api.example.com` (a path prefix is kept). */
  baseUrl: string;
  /** The integrator's P-256 private key: a KeyObject or a PEM string. */
  privateKey: KeyObject | string;
  fetch?: typeof fetch;
  /**
   * Sign a 401 again in the next second and send it once more. The server accepts a signed message once, and
   * separate processes signing the same request in the same second (two CLI runs in a script) cannot know of each
   * other; a refused message has had no effect, so sending it again re-signed is safe. Off by default.
   */
  resignOnUnauthorized?: boolean;
  /**
   * How many times to send a request again, re-signed, after a network error, a 5xx, a 429 or a 409
   * `idempotency_in_flight`: after Retry-After when the answer gives one (up to 10 s), else after an exponential
   * back-off with jitter (0.5 s, 1 s, 2 s … up to 8 s, each 50–100 % of that). Default 2; 0 turns retries off. Every
   * POST carries an Idempotency-Key (one per call, the same on each of its retries), so a retried POST acts once.
   */
  maxRetries?: number;
}

/** The integrator and key a request was signed as (GET /v1/credentials/current). */
export interface Credential {
  integratorId: string;
  keyId: string;
  /** `0x` + compressed SEC1 hex: the X-Pubkey value. */
  publicKey: string;
}

export interface RequestOptions {
  query?: Record<string, QueryValue>;
  body?: unknown;
  /** A POST's Idempotency-Key; default a new random one per call. */
  idempotencyKey?: string;
}

/**
 * Signs every request with X-Pubkey, X-Timestamp and X-Signature (spec §5; ECDSA P-256, SHA-256, DER). The server
 * accepts a signed message once, so two identical requests within one second are spaced into the next second.
 */
export class HeraldClient {
  readonly publicKey: string;
  readonly #key: KeyObject;
  readonly #base: URL;
  readonly #fetch: typeof fetch;
  readonly #resign: boolean;
  readonly #maxRetries: number;
  readonly #seconds = createSignedSeconds();

  constructor(options: HeraldClientOptions) {
    this.#key = typeof options.privateKey === 'string' ? createPrivateKey(options.privateKey) : options.privateKey;
    this.publicKey = `0x${compressedHexOf(this.#key)}`;
    this.#base = new URL(options.baseUrl.endsWith('/') ? options.baseUrl : `${options.baseUrl}/`);
    this.#fetch = options.fetch ?? fetch;
    this.#resign = options.resignOnUnauthorized ?? false;
    this.#maxRetries = options.maxRetries ?? 2;
  }

  /** Sends one signed request and returns the parsed JSON body; throws HeraldApiError on non-2xx. */
  async request<T>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
    const url = new URL(withQuery(path, options.query).replace(/^\//, ''), this.#base);
    const target = `${url.pathname}${url.search}`;
    const body = options.body === undefined ? undefined : Buffer.from(JSON.stringify(options.body), 'utf8');
    const send = async () => {
      const timestamp = await this.#seconds.timestampFor(method, target, body);
      const headers: Record<string, string> = {
        'x-pubkey': this.publicKey,
        'x-timestamp': timestamp,
        'x-signature': signRequest(this.#key, requestSigningInput(timestamp, method, target, body)),
      };
      if (body) headers['content-type'] = 'application/json';
      if (idempotencyKey) headers['idempotency-key'] = idempotencyKey;
      return await this.#fetch(url, { method, headers, body });
    };
    const idempotencyKey = method === 'POST' ? (options.idempotencyKey ?? randomUUID()) : undefined;
    const res = await withRetries(async () => {
      const first = await send();
      if (first.status !== 401 || !this.#resign) return first;
      await first.arrayBuffer();
      return await send(); // timestampFor moves to the next second: this exact request was signed in this one
    }, this.#maxRetries);
    return await readResponse<T>(res);
  }

  /** Creates a subscription (ordering omitted: none); the answer carries its active key (`keyId`, `publicKey`). */
  async createSubscription(input: CreateSubscriptionInput): Promise<Subscription> {
    return await this.request('POST', SUBSCRIPTIONS, { body: input });
  }

  /** One page of subscriptions, newest first; pass the previous page's nextCursor (same filters) for the next. */
  async listSubscriptionsPage(
    options: { status?: SubscriptionStatus | 'paused'; limit?: number; cursor?: string } = {},
  ): Promise<SubscriptionPage> {
    return await this.request('GET', SUBSCRIPTIONS, { query: { ...options } });
  }

  /** Every subscription (optionally of one status), newest first, following nextCursor page by page. */
  listSubscriptions(
    options: { status?: SubscriptionStatus | 'paused'; limit?: number } = {},
  ): AsyncGenerator<Subscription, void, undefined> {
    return follow(
      (cursor) => this.listSubscriptionsPage({ ...options, cursor }),
      (page) => page.subscriptions,
    );
  }

  async getSubscription(id: string): Promise<Subscription> {
    return await this.request('GET', subscriptionPath(id));
  }

  /**
   * Changes url, eventTypes, description, status and/or ordering (at least one); a new url is checked again, a new
   * ordering applies to deliveries ingested from then on.
   */
  async updateSubscription(id: string, changes: UpdateSubscriptionInput): Promise<Subscription> {
    return await this.request('PATCH', subscriptionPath(id), { body: changes });
  }

  /** Deletes it; its pending deliveries end as cancelled. */
  async deleteSubscription(id: string): Promise<void> {
    await this.request('DELETE', subscriptionPath(id));
  }

  /** Pauses it (idempotent): its deliveries are made and held, none attempted, until resumed. */
  async pauseSubscription(id: string): Promise<Subscription> {
    return await this.request('POST', `${subscriptionPath(id)}/pause`);
  }

  /** Resumes it (idempotent): its held deliveries are released, oldest first, at the server's resume rate. */
  async resumeSubscription(id: string): Promise<Subscription> {
    return await this.request('POST', `${subscriptionPath(id)}/resume`);
  }

  /** A new active signing key; the earlier ones stay listed as inactive (the newest in `keys`, all below). */
  async rotateSubscriptionKey(id: string): Promise<Subscription> {
    return await this.request('POST', `${subscriptionPath(id)}/rotate-key`);
  }

  /** Every signing key the subscription ever had, newest first, following nextCursor page by page. */
  listSubscriptionKeys(id: string): AsyncGenerator<SubscriptionKey, void, undefined> {
    const path = `${subscriptionPath(id)}/keys`;
    const page = (cursor?: string) => this.request<SubscriptionKeyPage>('GET', path, { query: { cursor } });
    return follow(page, (p) => p.keys);
  }

  /** The integrator and key this client signs as. */
  async credential(): Promise<Credential> {
    return await this.request('GET', '/v1/credentials/current');
  }

  /** One page of GET /v1/query/events; pass the previous page's nextCursor (with the same filters) for the next. */
  async listEventsPage(filters: EventFilters & { cursor?: string } = {}): Promise<EventPage> {
    return await this.request('GET', '/v1/query/events', { query: { ...filters } });
  }

  /** Every event matching the filters, newest first, following nextCursor page by page. */
  listEvents(filters: EventFilters = {}): AsyncGenerator<EventHistoryItem, void, undefined> {
    return follow(
      (cursor) => this.listEventsPage({ ...filters, cursor }),
      (page) => page.events,
    );
  }

  /** Sends a signed test delivery (§4.2) and answers once its first attempt has been made. */
  async sendTestDelivery(subscriptionId: string): Promise<TestDeliveryResponse> {
    return await this.request('POST', `${subscriptionPath(subscriptionId)}/test`);
  }

  /** One page of the delivery history, newest first; pass the previous page's nextCursor (same filters). */
  async listDeliveriesPage(filters: DeliveryFilters & { limit?: number; cursor?: string } = {}): Promise<DeliveryPage> {
    return await this.request('GET', DELIVERIES, { query: { ...filters } });
  }

  /** Every delivery matching the filters, newest first, following nextCursor page by page. */
  listDeliveries(filters: DeliveryFilters & { limit?: number } = {}): AsyncGenerator<Delivery, void, undefined> {
    return follow(
      (cursor) => this.listDeliveriesPage({ ...filters, cursor }),
      (page) => page.deliveries,
    );
  }

  /** A delivery with its first 100 attempts (listAttempts gives them all). */
  async getDelivery(id: string): Promise<DeliveryWithAttempts> {
    return await this.request('GET', deliveryPath(id));
  }

  /** One page of a delivery's attempts, oldest first, after attempt number `after` (the previous page's nextAfter). */
  async listAttemptsPage(id: string, page: { after?: number; limit?: number } = {}): Promise<AttemptPage> {
    return await this.request('GET', `${deliveryPath(id)}/attempts`, { query: { ...page } });
  }

  /** Every attempt of a delivery, oldest first, following nextAfter page by page. */
  async *listAttempts(id: string, limit?: number): AsyncGenerator<DeliveryAttempt, void, undefined> {
    let after: number | null = 0;
    while (after !== null) {
      const page: AttemptPage = await this.listAttemptsPage(id, { after, ...(limit ? { limit } : {}) });
      yield* page.attempts;
      after = page.nextAfter;
    }
  }

  /** Attempts now (202): a waiting delivery skips its wait; a finished one is attempted once more. */
  async retryDelivery(id: string): Promise<Delivery> {
    return await this.request('POST', `${deliveryPath(id)}/retry`);
  }

  /** Cancels a pending delivery (a cancelled one is answered as it is; 409 delivery_finished once it has ended). */
  async cancelDelivery(id: string): Promise<Delivery> {
    return await this.request('POST', `${deliveryPath(id)}/cancel`);
  }

  /** A subscription's deliveries counted by status, and its oldest pending one. */
  async deliverySummary(subscriptionId: string): Promise<DeliverySummary> {
    return await this.request('GET', `${subscriptionPath(subscriptionId)}/deliveries/summary`);
  }

  /** A subscription's attempts, success rate and latency hour by hour: the last `hours` (default 24), current last. */
  async subscriptionStats(subscriptionId: string, hours?: number): Promise<SubscriptionStats> {
    return await this.request('GET', `${subscriptionPath(subscriptionId)}/stats`, {
      query: hours === undefined ? {} : { hours },
    });
  }

  /** Starts (or finds: same window, same campaign) a paced re-delivery of a window of failed deliveries. */
  async recoverDeliveries(subscriptionId: string, input: RecoverInput): Promise<RecoveryCampaign> {
    return await this.request('POST', `${subscriptionPath(subscriptionId)}/recover`, { body: input });
  }

  /** A recovery campaign and its progress. */
  async getCampaign(id: string): Promise<RecoveryCampaign> {
    return await this.request('GET', campaignPath(id));
  }

  /** Pauses, resumes or cancels a recovery campaign; answers it after the change. */
  async controlCampaign(id: string, control: 'pause' | 'resume' | 'cancel'): Promise<RecoveryCampaign> {
    return await this.request('POST', `${campaignPath(id)}/${control}`);
  }

  /** A single-use link into the portal for a person of the integrator (docs/portal.md). */
  async portalLink(options: PortalLinkOptions = {}): Promise<PortalLink> {
    return await this.request('POST', '/v1/portal/sessions', { body: options });
  }
}

/** Yields the items of page after page, following `nextCursor` until it is null. */
async function* follow<P extends { nextCursor: string | null }, T>(
  fetchPage: (cursor: string | undefined) => Promise<P>,
  itemsOf: (page: P) => T[],
): AsyncGenerator<T, void, undefined> {
  let cursor: string | undefined;
  do {
    const page = await fetchPage(cursor);
    yield* itemsOf(page);
    cursor = page.nextCursor ?? undefined;
  } while (cursor !== undefined);
}
