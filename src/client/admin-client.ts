import { readResponse } from './http.js';

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
    const headers: Record<string, string> = { authorization: `Bearer ${this.token}` };
    if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await this.fetchFn(`${this.#base}${path}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return await readResponse<T>(res);
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
  revokeKey(integratorId: string, keyId: string): Promise<void> {
    return this.request(
      'DELETE',
      `/internal/v1/integrators/${encodeURIComponent(integratorId)}/keys/${encodeURIComponent(keyId)}`,
    );
  }
}
