// A bare HTTP listener for Prometheus scrapes, apart from the API port (docs/operations-metrics.md: exposure).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface MetricsServer {
  readonly url: string;
  close(): Promise<void>;
}

export interface MetricsServerOptions {
  readonly host: string;
  readonly port: number;
  readonly contentType: string;
  /** The exposition text; a rejection answers 500 with no detail. */
  readonly collect: () => Promise<string>;
  readonly onError?: (err: unknown) => void;
}

/** Serves `GET /metrics` (and nothing else: 404) on its own address. */
export async function startMetricsServer(options: MetricsServerOptions): Promise<MetricsServer> {
  const server: Server = createServer((req, res) => {
    if (req.method !== 'GET' || (req.url ?? '').split('?')[0] !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
      return;
    }
    options.collect().then(
      (text) => res.writeHead(200, { 'content-type': options.contentType }).end(text),
      (err: unknown) => {
        options.onError?.(err);
        res.writeHead(500, { 'content-type': 'text/plain' }).end('metrics unavailable\n');
      },
    );
  });
  server.requestTimeout = 10_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const { address, port } = server.address() as AddressInfo;
  const host = address.includes(':') ? `[${address}]` : address;
  return {
    url: `http://${host}:${port}/metrics`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/**
 * The Temporal SDK's own metrics, read from its Prometheus exporter (Runtime telemetry, bound on loopback) so the
 * worker's one endpoint carries both. Bounded in time; an unreachable exporter contributes nothing.
 */
export async function scrapeText(url: string, timeoutMs = 2_000): Promise<string> {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
    if (!res.ok) return '';
    const text = await res.text();
    return text.endsWith('\n') || text === '' ? text : `${text}\n`;
  } catch {
    return '';
  }
}
