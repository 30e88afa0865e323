import { createServer, type Server } from 'node:https';
import type { IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WEBHOOK_HEADERS, WebhookVerificationError, type WebhookEvent } from '../../receiver/index.js';

/** What `herald listen` made of one request. */
export interface Received {
  at: Date;
  deliveryId: string | null;
  event: WebhookEvent | null;
  /** The attempt number, as the API counts it (null when unknown). */
  attempt: number | null;
  /** null when verified; else why not (`invalid_signature: …`). */
  problem: string | null;
  status: number;
  forwarded?: string;
}

export interface LocalReceiverOptions {
  cert: string;
  key: string;
  port: number;
  /** Verifies the raw body and headers (throws WebhookVerificationError when they do not) and finds the attempt. */
  verify(raw: Buffer, headers: IncomingMessage['headers']): Promise<{ event: WebhookEvent; attempt: number | null }>;
  /** The status a verified delivery gets (default 204), unless forwarded. */
  status?: number;
  /** A loopback URL that gets each verified delivery as it came; its status is answered. */
  forwardTo?: URL;
  onReceived(r: Received): void;
}

const MAX_BODY = 1024 * 1024;
const FORWARDED_HEADERS = ['content-type', ...Object.values(WEBHOOK_HEADERS).map((h) => h.toLowerCase())];

async function readBody(req: IncomingMessage): Promise<Buffer | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY) return null;
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

async function forward(to: URL, raw: Buffer, headers: IncomingMessage['headers']): Promise<number> {
  const sent: Record<string, string> = {};
  for (const name of FORWARDED_HEADERS) if (typeof headers[name] === 'string') sent[name] = headers[name];
  const res = await fetch(to, {
    method: 'POST',
    headers: sent,
    body: raw,
    redirect: 'manual',
    signal: AbortSignal.timeout(10_000),
  });
  await res.arrayBuffer();
  return res.status;
}

/**
 * The HTTPS listener of `herald listen`, on 127.0.0.1 only: verifies every request with the receiver helper and
 * answers the chosen status (or the forward target's); an unverified request is answered 400 and never forwarded.
 */
export async function startLocalReceiver(options: LocalReceiverOptions): Promise<{ server: Server; port: number }> {
  const server = createServer({ cert: options.cert, key: options.key }, (req, res) => {
    void (async () => {
      const at = new Date();
      const raw = await readBody(req);
      const header = req.headers[WEBHOOK_HEADERS.deliveryId.toLowerCase()];
      const received: Received = {
        at,
        deliveryId: typeof header === 'string' ? header : null,
        event: null,
        attempt: null,
        problem: null,
        status: 400,
      };
      if (raw === null) received.problem = `body larger than ${MAX_BODY} bytes`;
      else if (req.method !== 'POST') received.problem = `method ${req.method ?? '?'}`;
      else {
        try {
          ({ event: received.event, attempt: received.attempt } = await options.verify(raw, req.headers));
          received.status = options.status ?? 204;
          if (options.forwardTo) {
            try {
              received.status = options.status ?? (await forward(options.forwardTo, raw, req.headers));
              received.forwarded = options.forwardTo.href;
            } catch (err) {
              received.status = 502;
              received.forwarded = `${options.forwardTo.href} failed: ${(err as Error).message}`;
            }
          }
        } catch (err) {
          if (!(err instanceof WebhookVerificationError)) throw err;
          received.problem = `${err.code}: ${err.message}`;
        }
      }
      res.writeHead(received.status).end();
      options.onReceived(received);
    })().catch(() => res.destroy());
  });
  server.on('tlsClientError', () => {});
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, '127.0.0.1', () => resolve());
  });
  return { server, port: (server.address() as AddressInfo).port };
}
