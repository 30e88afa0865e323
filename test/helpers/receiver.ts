import { readFileSync } from 'node:fs';
import type { IncomingHttpHeaders } from 'node:http';
import { createServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { requireEnv } from './env.js';

export interface RecordedRequest {
  method: string;
  /** Path and query, as received. */
  url: string;
  headers: IncomingHttpHeaders;
  /** The exact bytes received: verify signatures over these, never over re-serialised JSON. */
  body: Buffer;
  /** Date.now() when the body had been read. */
  receivedAt: number;
}

export interface ReceiverResponse {
  status?: number;
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** Wait this long before answering (to provoke timeouts); cut short by close(). */
  delayMs?: number;
}

export type ReceiverHandler = (request: RecordedRequest) => ReceiverResponse | Promise<ReceiverResponse>;

export interface HttpsReceiver {
  readonly port: number;
  readonly host: string;
  /** Every request so far, in arrival order. */
  readonly requests: RecordedRequest[];
  /** TCP connections accepted so far (to prove that nothing connected at all). */
  readonly connections: number;
  /** TLS handshakes completed so far (to prove keep-alive reuse). */
  readonly secureConnections: number;
  /** Replaces the handler for the following requests. */
  respond(handler: ReceiverHandler): void;
  close(): Promise<void>;
}

export interface ReceiverOptions {
  /** 127.0.0.1 unless given: tests only ever talk to loopback. */
  host?: string;
}

/**
 * A real HTTPS server with the test bed's `*.example.com` certificate (trusted through NODE_EXTRA_CA_CERTS), so
 * clients talk to it exactly as to a receiver on the internet: point a static DNS entry such as
 * `hooks.example.com=127.0.0.1` at it. Answers 204 until told otherwise.
 */
export async function startHttpsReceiver(
  handler: ReceiverHandler = () => ({ status: 204 }),
  { host = '127.0.0.1' }: ReceiverOptions = {},
): Promise<HttpsReceiver> {
  let current = handler;
  let connections = 0;
  let secureConnections = 0;
  const requests: RecordedRequest[] = [];
  const timers = new Set<NodeJS.Timeout>();
  const sockets = new Set<Socket>();
  const server = createServer({
    cert: readFileSync(requireEnv('HERALD_TEST_TLS_CERT')),
    key: readFileSync(requireEnv('HERALD_TEST_TLS_KEY')),
  });
  server.on('connection', (socket: Socket) => {
    connections += 1;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  server.on('secureConnection', () => (secureConnections += 1));
  // A client that hangs up mid-response (as one reading a bounded body does) is normal here, not a failure.
  server.on('tlsClientError', () => {});

  server.on('request', (req, res) => {
    res.on('error', () => {});
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('error', () => {});
    req.on('end', () => {
      const recorded = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks),
        receivedAt: Date.now(),
      };
      requests.push(recorded);
      void (async () => {
        const reply = await current(recorded);
        if (reply.delayMs) {
          await new Promise<void>((resolve) => {
            const timer = setTimeout(() => (timers.delete(timer), resolve()), reply.delayMs);
            timers.add(timer);
          });
        }
        if (res.destroyed) return;
        res.writeHead(reply.status ?? 204, reply.headers);
        res.end(reply.body);
      })().catch(() => res.destroy());
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    host,
    requests,
    get connections() {
      return connections;
    },
    get secureConnections() {
      return secureConnections;
    },
    respond(next) {
      current = next;
    },
    async close() {
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const socket of sockets) socket.destroy();
      await closed;
    },
  };
}
