// A bare HTTP listener for Prometheus scrapes, apart from the API port (docs/operations-metrics.md: exposure).
import { createServer, type Server } from 'node:http';
import { createServer as createTcpServer, type AddressInfo } from 'node:net';
import { ConfigError } from '../config.js';

export interface MetricsServer {
  readonly url: string;
  close(): Promise<void>;
}

export interface MetricsServerOptions {
  /** The variable that sets the port, named when the port is taken. */
  readonly setting: string;
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
    server.once('error', (err) => reject(portTakenError(options.setting, `${options.host}:${options.port}`, err)));
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
 * A port already bound (by another worker on the host, say) as one line that names the variable to change; any other
 * error as it is. Node reports EADDRINUSE, the SDK's Rust core the OS's text.
 */
export function portTakenError(setting: string, address: string, err: unknown): unknown {
  const taken =
    (err as NodeJS.ErrnoException | null)?.code === 'EADDRINUSE' ||
    (err instanceof Error && /address already in use/i.test(err.message));
  if (!taken) return err;
  return new ConfigError(`${setting}: ${address} is already in use; set another port, 0 for a free one, or off`);
}

/** A loopback port free at this moment, chosen by the kernel. */
export async function freeLoopbackPort(host: string): Promise<number> {
  const probe = createTcpServer();
  await new Promise<void>((resolve, reject) => {
    probe.once('error', reject);
    probe.listen(0, host, () => resolve());
  });
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
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
