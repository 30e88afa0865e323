import { randomUUID, sign, type KeyObject } from 'node:crypto';
import { createServer, request, type IncomingHttpHeaders, type Server } from 'node:http';

/** The X-Signature value a fuzzer sends to ask the proxy for a real signature; anything else passes untouched. */
export const SIGN_PLACEHOLDER = 'proxy-signs';

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'upgrade', 'proxy-connection', 'te']);

/**
 * A loopback-only reverse proxy that signs requests as an integrator would (spec §5), with node:crypto alone (no
 * Herald code): a request whose X-Signature is SIGN_PLACEHOLDER gets a fresh X-Timestamp and the ECDSA P-256
 * signature over timestamp + METHOD + path_and_query + body, exactly as received. A request without it (a fuzzer's
 * missing or broken credential case) is forwarded as sent, so the API's own refusal is what the fuzzer sees.
 * A well-formed Idempotency-Key is made fresh for each request (below).
 */
export async function startSigningProxy(
  target: { host: string; port: number },
  key: KeyObject,
): Promise<{ url: string; signed: () => number; close: () => Promise<void> }> {
  let signed = 0;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const headers: IncomingHttpHeaders = {};
      for (const [name, value] of Object.entries(req.headers)) if (!HOP_BY_HOP.has(name)) headers[name] = value;
      headers['content-length'] = String(body.length);
      if (req.headers['x-signature'] === SIGN_PLACEHOLDER) {
        const timestamp = String(Math.floor(Date.now() / 1000));
        const message = Buffer.concat([Buffer.from(`${timestamp}${req.method ?? ''}${req.url ?? ''}`), body]);
        headers['x-timestamp'] = timestamp;
        headers['x-signature'] = `0x${sign('sha256', message, { key, dsaEncoding: 'der' }).toString('hex')}`;
        signed += 1;
      }
      // A client makes one Idempotency-Key per call: a well-formed key the fuzzer drew is replaced by a fresh one, so
      // two generated requests never share one (a reused key's 422 depends on what came before, not on the request;
      // test/integration/idempotency-keys.test.ts covers it). A malformed one goes as sent, for the API's 400.
      const drawn = req.headers['idempotency-key'];
      if (typeof drawn === 'string' && /^[\x21-\x7e]{1,255}$/.test(drawn)) headers['idempotency-key'] = randomUUID();
      const upstream = request(
        { host: target.host, port: target.port, method: req.method, path: req.url, headers },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      upstream.on('error', (err) => {
        res.writeHead(502, { 'content-type': 'text/plain' }).end(`signing proxy: ${err.message}`);
      });
      upstream.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('signing proxy: no address');
  return {
    url: `http://127.0.0.1:${address.port}`,
    signed: () => signed,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
