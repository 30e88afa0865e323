// A Herald webhook receiver with Fastify and herald/receiver. Run: HERALD_WEBHOOK_PUBLIC_KEY=<subscription publicKey>
// npx tsx server.ts (PORT, HOST; TLS_CERT and TLS_KEY to serve HTTPS itself, else put it behind a TLS proxy).
import { readFileSync } from 'node:fs';
import Fastify from 'fastify';
import { WEBHOOK_HEADERS, WebhookVerificationError, WebhookVerifier } from 'herald/receiver';

const publicKey = process.env.HERALD_WEBHOOK_PUBLIC_KEY;
if (!publicKey) throw new Error('set HERALD_WEBHOOK_PUBLIC_KEY to the subscription publicKey');
// During a key rotation, WebhookVerifier.fromKeys({ [keyId]: publicKey, … }) picks the key by the Key-Id header.
const verifier = new WebhookVerifier(publicKey);
/** Deliveries are at-least-once: remember the ids handled (a database table in a real service). */
const handled = new Set<string>();

const tls = process.env.TLS_CERT && process.env.TLS_KEY;
const app = Fastify(
  tls ? { https: { cert: readFileSync(process.env.TLS_CERT!), key: readFileSync(process.env.TLS_KEY!) } } : {},
);
// The signature covers the exact bytes received: keep the body as a Buffer, parse it only after verifying.
app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));

app.post('/webhooks/herald', async (request, reply) => {
  try {
    const event = verifier.verify(request.body as Buffer, request.headers);
    const deliveryId = request.headers[WEBHOOK_HEADERS.deliveryId.toLowerCase()] as string;
    if (!handled.has(deliveryId)) {
      handled.add(deliveryId);
      console.log(JSON.stringify({ verified: true, deliveryId, eventId: event.id, eventType: event.eventType }));
    }
    return await reply.code(204).send();
  } catch (err) {
    if (!(err instanceof WebhookVerificationError)) throw err;
    console.log(JSON.stringify({ verified: false, reason: err.code }));
    return await reply.code(400).send({ error: err.code });
  }
});

const address = await app.listen({ host: process.env.HOST ?? '127.0.0.1', port: Number(process.env.PORT ?? 4000) });
console.log(`listening on ${address}`);
