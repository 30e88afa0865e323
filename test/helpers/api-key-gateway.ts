// A Temporal endpoint shaped like Temporal Cloud's API-key endpoints, on loopback: TLS (a certificate from a test CA,
// ALPN h2) in front of the test bed's plain-h2c Temporal, every gRPC call checked for `authorization: Bearer <key>`
// and refused with UNAUTHENTICATED otherwise. Each accepted call is forwarded stream for stream (headers, messages,
// trailers), long polls included; the gateway keeps a log of what it saw, and refuses the methods a test names.
import { readFileSync } from 'node:fs';
import {
  connect,
  constants,
  createSecureServer,
  type ClientHttp2Session,
  type Http2Session,
  type Http2Stream,
  type IncomingHttpHeaders,
  type OutgoingHttpHeaders,
  type ServerHttp2Stream,
} from 'node:http2';
import type { AddressInfo } from 'node:net';

export interface GatewayCall {
  /** `/temporal.api.workflowservice.v1.WorkflowService/PollActivityTaskQueue` and the like. */
  readonly method: string;
  /** The key was right (a method in `refusals` is still refused after). */
  readonly accepted: boolean;
  /** The `temporal-namespace` header, when the client sent one. */
  readonly namespace: string | undefined;
}

export interface ApiKeyGateway {
  readonly port: number;
  readonly calls: readonly GatewayCall[];
  /** Method name (`AddSearchAttributes`) → the gRPC status an authorized call of it is refused with. */
  readonly refusals: Map<string, number>;
  close(): Promise<void>;
}

const UNAUTHENTICATED = 16;
const { HTTP2_HEADER_STATUS, NGHTTP2_CANCEL, NGHTTP2_NO_ERROR } = constants;

const without = (headers: IncomingHttpHeaders, drop: (name: string) => boolean): OutgoingHttpHeaders =>
  Object.fromEntries(Object.entries(headers).filter(([name]) => !drop(name)));

/** Answers a call with an error status only, trailers-only, as a gRPC server refuses a call before reading it. */
function refuse(down: ServerHttp2Stream, status: number, message: string): void {
  const headers = { 'content-type': 'application/grpc', 'grpc-status': String(status), 'grpc-message': message };
  down.respond({ [HTTP2_HEADER_STATUS]: 200, ...headers }, { endStream: true });
}

/** Forwards one accepted call on `upstream`, answering `down` with what the server answers, trailers included. */
function forward(down: ServerHttp2Stream, headers: IncomingHttpHeaders, upstream: ClientHttp2Session): void {
  // The key stops here, as at Cloud's edge; pseudo-headers other than the path are the upstream session's own.
  const up = upstream.request({
    ...without(headers, (n) => n.startsWith(':') || n === 'authorization'),
    ':method': 'POST',
    ':path': headers[':path'],
  });
  let trailers: OutgoingHttpHeaders = {};
  up.on('trailers', (t) => (trailers = without(t, (n) => n.startsWith(':'))));
  up.on('response', (answer, flags) => {
    if (down.destroyed) return;
    const endStream = (flags & constants.NGHTTP2_FLAG_END_STREAM) !== 0; // trailers-only (an error status)
    down.respond(
      without(answer, (n) => n.startsWith(':') && n !== HTTP2_HEADER_STATUS),
      {
        endStream,
        waitForTrailers: !endStream,
      },
    );
    if (!endStream) up.pipe(down);
  });
  down.on('wantTrailers', () => down.sendTrailers(trailers));
  down.pipe(up);
  // A cancelled call (a worker's poll at shutdown) cancels upstream, and an upstream reset resets the caller's; a
  // stream that ended normally closes with NO_ERROR and leaves the other side to finish.
  const relayReset = (from: Http2Stream, to: Http2Stream) => () => {
    if (!to.destroyed && from.rstCode !== NGHTTP2_NO_ERROR) to.close(from.rstCode ?? NGHTTP2_CANCEL);
  };
  down.on('close', relayReset(down, up));
  up.on('close', relayReset(up, down));
  for (const s of [down, up]) s.on('error', () => undefined);
}

/** Starts the gateway on 127.0.0.1 in front of `upstream` (host:port, plain h2c), accepting `Bearer <apiKey>` only. */
export async function startApiKeyGateway(
  upstream: string,
  apiKey: string,
  tls: { cert: string; key: string },
): Promise<ApiKeyGateway> {
  const calls: GatewayCall[] = [];
  const refusals = new Map<string, number>();
  // One upstream connection per client connection, closed with it.
  const upstreams = new Map<Http2Session, ClientHttp2Session>();
  const server = createSecureServer({
    cert: readFileSync(tls.cert),
    key: readFileSync(tls.key),
    ALPNProtocols: ['h2'],
  });
  server.on('session', (session) => {
    const up = connect(`http://${upstream}`);
    upstreams.set(session, up);
    up.on('error', () => session.destroy());
    session.on('close', () => {
      upstreams.delete(session);
      up.close();
    });
    session.on('error', () => undefined);
  });
  server.on('stream', (down, headers) => {
    const method = String(headers[':path']);
    const namespace = headers['temporal-namespace'] as string | undefined;
    const accepted = headers.authorization === `Bearer ${apiKey}`;
    calls.push({ method, accepted, namespace });
    down.on('error', () => undefined);
    if (!accepted) return refuse(down, UNAUTHENTICATED, headers.authorization ? 'invalid API key' : 'missing API key');
    const refusal = refusals.get(method.slice(method.lastIndexOf('/') + 1));
    if (refusal !== undefined) return refuse(down, refusal, 'Request unauthorized.');
    const up = down.session && upstreams.get(down.session);
    if (up && !up.closed && !up.destroyed) forward(down, headers, up);
    else down.close(constants.NGHTTP2_REFUSED_STREAM);
  });
  server.on('tlsClientError', () => undefined);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    calls,
    refusals,
    async close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const [session, up] of upstreams) {
        session.destroy();
        up.destroy();
      }
      await closed;
    },
  };
}
