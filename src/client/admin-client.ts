import type {
  AdminDelivery,
  AdminDeliveryFilters,
  AdminDeliveryPage,
  AdminDeliveryWithAttempts,
} from '../api/schemas/admin-deliveries.js';
import { readResponse, withQuery } from './http.js';
import type { EventHistoryItem, PublishEventInput } from './events.js';

export interface Integrator {
  id: string;
  name: string;
  createdAt: string;
}
export interface IntegratorKey {
  id: string;
  publicKey: string;
  createdAt: string;
  revokedAt: string | null;
}

/** An integrator's erasure, or a subject's (docs/retention.md, "Erasure", "Erasing a subject"). */
export interface ErasureJob {
  integratorId: string;
  /** A subject's erasure only. */
  subjectId?: string;
  state: 'running' | 'completed' | 'failed';
  step: string | null;
  counts: Record<string, number> | null;
  startedAt: string;
  closedAt: string | null;
}

/** A single-use link into the integrator portal (docs/portal.md). */
export interface PortalLink {
  url: string;
  expiresAt: string;
}
export interface PortalLinkOptions {
  scope?: 'read' | 'manage';
  sessionSeconds?: number;
}

/** The internal admin API (`Authorization: Bearer $HERALD_ADMIN_TOKEN`), used by the CLI and by operators' tools. */
export class HeraldAdminClient {
  readonly #base: string;
  constructor(
    baseUrl: string,
    readonly token: string,
    private readonly fetchFn: typeof fetch = fetch,
  ) {
    this.#base = baseUrl.replace(/\/$/, '');
  }

  async request<T>(method: string, path: string, body?: unknown): Promise<T> {
    return (await this.exchange<T>(method, path, body)).body;
  }

  /** Like `request`, with the 2xx status (some answers differ only by it: 201 created vs 200 already there). */
  async exchange<T>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }> {
    return await this.#send(method, path, body === undefined ? undefined : JSON.stringify(body));
  }

  async #send<T>(method: string, path: string, json?: string): Promise<{ status: number; body: T }> {
    const headers: Record<string, string> = { authorization: `Bearer ${this.token}` };
    if (json !== undefined) headers['content-type'] = 'application/json';
    const res = await this.fetchFn(`${this.#base}${path}`, { method, headers, body: json });
    return { status: res.status, body: await readResponse<T>(res) };
  }

  createIntegrator(name: string): Promise<Integrator> {
    return this.request('POST', '/internal/v1/integrators', { name });
  }
  getIntegrator(id: string): Promise<Integrator & { keys: IntegratorKey[] }> {
    return this.request('GET', `/internal/v1/integrators/${encodeURIComponent(id)}`);
  }
  addKey(integratorId: string, publicKey: string): Promise<IntegratorKey> {
    return this.request('POST', `/internal/v1/integrators/${encodeURIComponent(integratorId)}/keys`, { publicKey });
  }
  /** Starts the integrator's erasure, or answers the one it has (idempotent). */
  eraseIntegrator(id: string): Promise<ErasureJob> {
    return this.request('DELETE', `/internal/v1/integrators/${encodeURIComponent(id)}`);
  }
  getErasure(id: string): Promise<ErasureJob> {
    return this.request('GET', `/internal/v1/integrators/${encodeURIComponent(id)}/erasure`);
  }
  /**
   * Starts the erasure of the integrator's events naming `subjectId` (a new one once the last completed), or answers
   * the one running.
   */
  eraseSubject(integratorId: string, subjectId: string): Promise<ErasureJob> {
    return this.request('DELETE', this.#subjectPath(integratorId, subjectId));
  }
  getSubjectErasure(integratorId: string, subjectId: string): Promise<ErasureJob> {
    return this.request('GET', `${this.#subjectPath(integratorId, subjectId)}/erasure`);
  }
  #subjectPath(integratorId: string, subjectId: string): string {
    return `/internal/v1/integrators/${encodeURIComponent(integratorId)}/subjects/${encodeURIComponent(subjectId)}`;
  }
  revokeKey(integratorId: string, keyId: string): Promise<void> {
    return this.request(
      'DELETE',
      `/internal/v1/integrators/${encodeURIComponent(integratorId)}/keys/${encodeURIComponent(keyId)}`,
    );
  }

  /** A link into the integrator's portal (single use, 5 minutes). */
  portalLink(integratorId: string, options: PortalLinkOptions = {}): Promise<PortalLink> {
    return this.request('POST', `/internal/v1/integrators/${encodeURIComponent(integratorId)}/portal-links`, options);
  }
  /** Ends every portal session and unused link of the integrator. */
  revokePortalSessions(integratorId: string): Promise<{ revoked: number }> {
    return this.request('DELETE', `/internal/v1/integrators/${encodeURIComponent(integratorId)}/portal-sessions`);
  }

  /** One page of every integrator's deliveries, newest first; `since` is inclusive. */
  listDeliveriesPage(
    filters: Omit<AdminDeliveryFilters, 'since'> & {
      since?: string | Date;
      limit?: number | string;
      cursor?: string;
    } = {},
  ): Promise<AdminDeliveryPage> {
    return this.request('GET', withQuery('/internal/v1/deliveries', { ...filters }));
  }
  /** A delivery with its attempts and the Temporal workflow (id, namespace) running it. */
  getDelivery(id: string): Promise<AdminDeliveryWithAttempts> {
    return this.request('GET', `/internal/v1/deliveries/${encodeURIComponent(id)}`);
  }
  retryDelivery(id: string): Promise<AdminDelivery> {
    return this.request('POST', `/internal/v1/deliveries/${encodeURIComponent(id)}/retry`);
  }

  /**
   * Publishes a lifecycle event; `created` is false when this exact event was stored before (idempotent). A string
   * is sent as is, as the event's JSON text: `data` is stored and delivered exactly as written there, whereas an
   * object goes through JSON.stringify (no BigInt; numbers as JavaScript holds them).
   */
  async publishEvent(event: PublishEventInput | string): Promise<{ created: boolean; event: EventHistoryItem }> {
    const json = typeof event === 'string' ? event : JSON.stringify(event);
    const res = await this.#send<EventHistoryItem>('POST', '/internal/v1/events', json);
    return { created: res.status === 201, event: res.body };
  }
}
