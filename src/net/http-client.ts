import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { performance } from 'node:perf_hooks';
import { Agent, type DiagnosticsChannel } from 'undici';
import {
  HTTP_CONNECT_TIMEOUT_MS,
  HTTP_RESPONSE_TIMEOUT_MS,
  RESPONSE_BODY_MAX_BYTES,
} from '../domain/attempt-bounds.js';
import type { PostOutcome, ResponseSummary } from '../domain/delivery-vocabulary.js';
import type { CallbackUrlPolicy } from './callback-url.js';
import { classifyError, DeadlineError, readBounded, summarizeHeaders } from './http-outcome.js';
import { BlockedDestinationError, createPinnedConnector, DestinationResolutionError } from './pinned-connector.js';

export interface PostResult {
  outcome: PostOutcome;
  statusCode: number | null;
  /** From the call to the end of the (bounded) body read, including DNS and connect. */
  latencyMs: number;
  /** The IP the request went to (or the last one a failed connection tried); null when none, or unknown. */
  address: string | null;
  /** Short, stack-free; set for every outcome but `succeeded`/`http_error`, and for those when the body broke off. */
  error: string | null;
  responseSummary: ResponseSummary | null;
}

export interface WebhookHttpClient {
  /**
   * Never rejects for receiver-side problems: they are outcomes. Rejects only for invalid arguments. `tenant` (the
   * integrator) bounds that tenant's name lookups apart from the others' (src/net/resolver.ts).
   */
  post(
    url: string,
    headers: Readonly<Record<string, string>>,
    body: string,
    options?: PostOptions,
  ): Promise<PostResult>;
  /** Destroys the pooled connections. */
  close(): Promise<void>;
}

export interface PostOptions {
  readonly tenant?: string;
}

export interface WebhookHttpClientOptions {
  policy: CallbackUrlPolicy;
  userAgent: string;
  connectTimeoutMs?: number;
  /** Bounds the wait for the response headers, each gap in the body, and (with the connect timeout) the whole post. */
  responseTimeoutMs?: number;
  maxResponseBytes?: number;
}

/** Lower-cases names so a caller's User-Agent replaces ours instead of doubling it. */
function requestHeaders(userAgent: string, headers: Readonly<Record<string, string>>): Record<string, string> {
  const merged: Record<string, string> = { 'user-agent': userAgent };
  for (const [name, value] of Object.entries(headers)) merged[name.toLowerCase()] = value;
  // undici would take a Host header as the TLS server name too: the URL alone decides where a delivery goes.
  if ('host' in merged) throw new TypeError('post(): the Host header is derived from the URL and cannot be set');
  return merged;
}

export function createWebhookHttpClient(options: WebhookHttpClientOptions): WebhookHttpClient {
  const {
    policy,
    userAgent,
    connectTimeoutMs = HTTP_CONNECT_TIMEOUT_MS,
    responseTimeoutMs = HTTP_RESPONSE_TIMEOUT_MS,
    maxResponseBytes = RESPONSE_BODY_MAX_BYTES,
  } = options;
  const connector = createPinnedConnector({ checkHost: policy.checkHost, timeoutMs: connectTimeoutMs });
  // Keep-alive pool per origin. undici 7's Agent follows no redirect without the redirect interceptor: a 3xx is
  // answered as is, so a receiver cannot bounce a delivery to an address that was never checked.
  const agent = new Agent({
    connect: connector.connect,
    headersTimeout: responseTimeoutMs,
    bodyTimeout: responseTimeoutMs,
  });

  // undici tells no request which pooled socket carried it; this documented channel does, right before sending.
  // Requests are matched by their body Buffer, which undici keeps by identity (an empty body is stored as null).
  const pending = new WeakMap<object, (address: string | undefined) => void>();
  const onSendHeaders = (message: unknown): void => {
    const { request, socket } = message as DiagnosticsChannel.ClientSendHeadersMessage;
    const body = (request as { body?: unknown }).body;
    if (typeof body === 'object' && body !== null) pending.get(body)?.(connector.addressOf(socket));
  };
  subscribe('undici:client:sendHeaders', onSendHeaders);

  async function post(
    url: string,
    headers: Readonly<Record<string, string>>,
    body: string,
    options: PostOptions = {},
  ): Promise<PostResult> {
    const started = performance.now();
    const elapsed = (): number => Math.round(performance.now() - started);
    const syntax = policy.checkSyntax(url);
    if (!syntax.ok) {
      const error = `${syntax.rule}: ${syntax.message}`;
      return {
        outcome: 'blocked',
        statusCode: null,
        latencyMs: elapsed(),
        address: null,
        error,
        responseSummary: null,
      };
    }
    const outgoing = requestHeaders(userAgent, headers);
    // Resolved first within the integrator's own bound on lookups (src/net/resolver.ts): a connection then finds the
    // answer cached, and a name that stalls or fails holds up only its integrator, never lookups of no tenant's.
    const host = await policy.checkHost(syntax.hostname, options.tenant);
    if (!host.ok) {
      const refused =
        host.rule === 'does_not_resolve'
          ? new DestinationResolutionError(host.message)
          : new BlockedDestinationError(host.message);
      const { outcome, error } = classifyError(refused);
      return { outcome, statusCode: null, latencyMs: elapsed(), address: null, error, responseSummary: null };
    }
    let address: string | null = null;
    const payload = Buffer.from(body);
    pending.set(payload, (a) => (address = a ?? null));
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(new DeadlineError()), connectTimeoutMs + responseTimeoutMs);
    try {
      const response = await agent.request({
        origin: syntax.url.origin,
        path: `${syntax.url.pathname}${syntax.url.search}`,
        method: 'POST',
        headers: outgoing,
        body: payload,
        signal: deadline.signal,
      });
      const read = await readBounded(response.body, maxResponseBytes);
      const statusCode = response.statusCode;
      return {
        outcome: statusCode >= 200 && statusCode < 300 ? 'succeeded' : 'http_error',
        statusCode,
        latencyMs: elapsed(),
        address,
        error: read.error,
        responseSummary: {
          status: statusCode,
          headers: summarizeHeaders(response.headers),
          body: read.body,
          truncated: read.truncated,
        },
      };
    } catch (err) {
      const { outcome, error } = classifyError(err);
      const tried = err instanceof Error ? connector.addressOf(err) : undefined;
      return {
        outcome,
        statusCode: null,
        latencyMs: elapsed(),
        address: address ?? tried ?? null,
        error,
        responseSummary: null,
      };
    } finally {
      clearTimeout(timer);
    }
  }

  return {
    post,
    async close() {
      unsubscribe('undici:client:sendHeaders', onSendHeaders);
      await agent.destroy();
    },
  };
}
