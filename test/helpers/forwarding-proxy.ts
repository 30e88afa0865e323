// A reverse proxy like the TLS terminator in front of Herald in production (minus TLS): every request reaches the
// API from the proxy's own address, with the client's address appended to X-Forwarded-For.
import { createServer, request, Agent, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ForwardingProxy {
  readonly port: number;
  close(): Promise<void>;
}

export async function startForwardingProxy(target: { host: string; port: number }): Promise<ForwardingProxy> {
  const upstream = new Agent({ keepAlive: true });
  const server = createServer((req, res) => {
    const prior = req.headers['x-forwarded-for'];
    const headers: IncomingHttpHeaders = {
      ...req.headers,
      'x-forwarded-for': prior ? `${String(prior)}, ${req.socket.remoteAddress}` : req.socket.remoteAddress,
    };
    const out = request({ ...target, agent: upstream, method: req.method, path: req.url, headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    out.on('error', () => res.destroy());
    req.pipe(out);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    async close() {
      server.closeAllConnections();
      upstream.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** One HTTP request from a chosen loopback source address (127.0.0.0/8 is all local on Linux) over `agent`. */
export function requestFrom(
  agent: Agent,
  port: number,
  opts: { method: string; path: string; headers: Record<string, string>; body?: string },
): Promise<{ status: number; headers: IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, agent, ...opts }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end(opts.body);
  });
}
