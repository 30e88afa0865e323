// The one client every page uses: same-origin credentials, the CSRF token on writes, an Idempotency-Key on every
// POST, one error shape, and a single place where a 401 ends the session.
import type { ApiErrorBody } from './types';

export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  /** The request body member the error is about (`url` for `body.url: …` or invalid_callback_url), if any. */
  readonly field: string | null;

  constructor(status: number, code: string, message: string, field: string | null = null) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.code = code;
    this.field = field;
  }
}

export type Query = Record<string, string | number | null | undefined>;

let csrfToken: string | null = null;
let sessionEnded: () => void = () => undefined;

export function setCsrfToken(token: string | null): void {
  csrfToken = token;
}

export function onSessionEnded(listener: () => void): void {
  sessionEnded = listener;
}

export function withQuery(path: string, query: Query = {}): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value !== undefined && value !== null && value !== '') params.set(name, String(value));
  }
  const search = params.toString();
  return search ? `${path}?${search}` : path;
}

/** crypto.randomUUID exists only in secure contexts; getRandomValues everywhere. */
export function newIdempotencyKey(): string {
  if (typeof crypto.randomUUID === 'function') return crypto.randomUUID();
  const b = crypto.getRandomValues(new Uint8Array(16));
  b[6] = ((b[6] ?? 0) & 0x0f) | 0x40;
  b[8] = ((b[8] ?? 0) & 0x3f) | 0x80;
  const hex = Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

const fallbackMessages: Record<number, string> = {
  0: 'The server could not be reached. Check your connection and try again.',
  404: 'Not found: it does not exist or was deleted.',
  429: 'Too many requests. Wait a moment and try again.',
  500: 'The server failed to answer this request. Try again later.',
  503: 'The service is busy or unavailable right now. Nothing is lost: try again in a moment.',
};

function fieldOf(code: string, message: string): string | null {
  if (code === 'invalid_callback_url') return 'url';
  return /^body\.([A-Za-z]+)/.exec(message)?.[1] ?? null;
}

async function errorOf(res: Response): Promise<ApiError> {
  let body: Partial<ApiErrorBody> = {};
  try {
    body = (await res.json()) as Partial<ApiErrorBody>;
  } catch {
    // Not JSON (a proxy's page): fall back to the status.
  }
  const code = typeof body.error === 'string' ? body.error : `http_${res.status}`;
  const message =
    body.message ??
    fallbackMessages[res.status] ??
    `The request failed (${res.status}${body.error ? ` ${code}` : ''}).`;
  return new ApiError(res.status, code, message, fieldOf(code, message));
}

type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';

/** Sends one request; resolves with a 2xx response, rejects with an ApiError otherwise. */
export async function request(method: Method, url: string, body?: unknown): Promise<Response> {
  const headers: Record<string, string> = { Accept: 'application/json' };
  if (method !== 'GET' && csrfToken) headers['X-CSRF-Token'] = csrfToken;
  if (method === 'POST') headers['Idempotency-Key'] = newIdempotencyKey();
  const init: RequestInit = { method, headers, credentials: 'same-origin' };
  if (method === 'POST' || method === 'PATCH') {
    headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body ?? {});
  }
  let res: Response;
  try {
    res = await fetch(url, init);
  } catch {
    throw new ApiError(0, 'network_error', fallbackMessages[0] ?? 'Network error.');
  }
  if (res.status === 401) {
    sessionEnded();
    throw new ApiError(401, 'unauthorized', 'This portal session has ended.');
  }
  if (!res.ok) throw await errorOf(res);
  return res;
}

export async function apiGet<T>(path: string, query?: Query): Promise<T> {
  const res = await request('GET', withQuery(path, query));
  return (await res.json()) as T;
}

/** The parsed answer and its exact text (to show payloads byte for byte). */
export async function apiGetWithText<T>(path: string, query?: Query): Promise<{ data: T; text: string }> {
  const res = await request('GET', withQuery(path, query));
  const text = await res.text();
  return { data: JSON.parse(text) as T, text };
}

export async function apiPost<T>(path: string, body: unknown = {}): Promise<T> {
  const res = await request('POST', path, body);
  return (await res.json()) as T;
}

export async function apiPatch<T>(path: string, body: unknown): Promise<T> {
  const res = await request('PATCH', path, body);
  return (await res.json()) as T;
}

export async function apiDelete(path: string): Promise<void> {
  await request('DELETE', path);
}

export const messageOf = (err: unknown): string =>
  err instanceof Error ? err.message : 'Something went wrong. Try again.';
