import { readFileSync } from 'node:fs';
import type { HeraldClient, Subscription } from '../../client/herald-client.js';
import { WebhookVerificationError, WebhookVerifier } from '../../receiver/index.js';
import { devDataDir, integratorClient } from '../credentials.js';
import { DEFAULT_LISTEN_PORT, devTlsFiles, LISTEN_HOST } from '../listen/dev-listener.js';
import { listenNotes, listenOptions as options, loopbackUrl } from '../listen/listen-options.js';
import { startLocalReceiver, type Received } from '../listen/local-receiver.js';
import { eventTypesOf, integerValue } from '../flags.js';
import { defineCommand } from '../program.js';
import { CliError } from '../support.js';
import type { CliIo } from '../types.js';

function readPem(file: string, what: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    throw new CliError(
      `cannot read the listener's ${what} ${file}: start the stack with \`npm run dev\` (it makes .data/tls/) or give --cert and --cert-key`,
    );
  }
}

/** The subscription whose URL is `url`: the given one, an existing one, or a new one. */
async function subscriptionFor(
  client: HeraldClient,
  url: string,
  id: string | undefined,
  eventTypes: string[] | undefined,
): Promise<Subscription> {
  if (id) return await client.getSubscription(id);
  for await (const s of client.listSubscriptions()) {
    if (s.url !== url) continue;
    const same = JSON.stringify(s.eventTypes) === JSON.stringify(eventTypes ?? []);
    return same && s.status === 'enabled'
      ? s
      : await client.updateSubscription(s.id, { eventTypes: (eventTypes ?? []) as never, status: 'enabled' });
  }
  return await client.createSubscription({ url, ...(eventTypes ? { eventTypes: eventTypes as never } : {}) });
}

const time = (d: Date) => d.toISOString().slice(11, 19);

export function formatReceived(r: Received): string {
  const verdict = r.problem === null ? 'verified' : `NOT VERIFIED (${r.problem})`;
  const forwarded = r.forwarded ? `  forwarded to ${r.forwarded}` : '';
  return `${time(r.at)}  ${r.event?.eventType ?? '?'}  ${r.deliveryId ?? '-'}  attempt ${r.attempt ?? '?'}  ${verdict}  → ${r.status}${forwarded}`;
}

export const listenCommand = defineCommand({
  name: 'listen',
  summary: 'Receive, verify and print deliveries on this machine (development; with `npm run dev`)',
  options,
  notes: listenNotes,
  async action({ values }, io: CliIo) {
    const text = (name: keyof typeof options) => values[name] as string | undefined;
    const port = integerValue(text('port'), 'port', 0, 65535) ?? DEFAULT_LISTEN_PORT;
    const status = integerValue(text('status'), 'status', 200, 599);
    const count = integerValue(text('count'), 'count', 1, 1_000_000);
    const forwardTo = loopbackUrl(text('forward-to'));
    const eventTypes = eventTypesOf(values['event-type']);
    const client = integratorClient(io.env, text('key'));
    const tls = devTlsFiles(devDataDir(io.env));
    const cert = readPem(text('cert') ?? tls.cert, 'certificate');
    const key = readPem(text('cert-key') ?? tls.key, 'key');

    let subscription: Subscription | undefined;
    let verifier: WebhookVerifier | undefined;
    const keysOf = (s: Subscription) =>
      WebhookVerifier.fromKeys(Object.fromEntries(s.keys.map((k) => [k.keyId, k.publicKey])));
    let seen = 0;
    let stop: () => void = () => {};
    const stopped = new Promise<void>((resolve) => (stop = resolve));

    const { server, port: bound } = await startLocalReceiver({
      cert,
      key,
      port,
      status,
      forwardTo,
      async verify(raw, headers) {
        if (!subscription || !verifier) throw new WebhookVerificationError('unknown_key', 'not subscribed yet');
        let event;
        try {
          event = verifier.verify(raw, headers);
        } catch (err) {
          // A key rotated since start-up: read the subscription's keys again, once.
          if (!(err instanceof WebhookVerificationError) || err.code !== 'unknown_key') throw err;
          subscription = await client.getSubscription(subscription.id);
          verifier = keysOf(subscription);
          event = verifier.verify(raw, headers);
        }
        // The attempt being made is not recorded yet: it is the one after those the API counts.
        const deliveryId = String(headers['x-service-webhook-delivery-id']);
        const attempt = await client.getDelivery(deliveryId).then(
          (d) => d.attemptCount + 1,
          () => null,
        );
        return { event, attempt };
      },
      onReceived(r) {
        io.stdout.write(values.json ? `${JSON.stringify(r)}\n` : `${formatReceived(r)}\n`);
        seen += 1;
        if (count !== undefined && seen >= count) stop();
      },
    });
    const onSignal = () => stop();
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
    if (io.signal?.aborted) stop();
    io.signal?.addEventListener('abort', onSignal);
    try {
      const url = `https://${LISTEN_HOST}:${bound}/`;
      subscription = await subscriptionFor(client, url, text('subscription'), eventTypes);
      verifier = keysOf(subscription);
      if (subscription.url !== url)
        io.stderr.write(`herald listen: subscription ${subscription.id} points to ${subscription.url}, not here\n`);
      io.stderr.write(
        `herald listen: ${url} on 127.0.0.1:${bound}, subscription ${subscription.id} (${subscription.eventTypes.length ? subscription.eventTypes.join(',') : 'all event types'}); Ctrl-C stops\n`,
      );
      if (values.test) {
        void client
          .sendTestDelivery(subscription.id)
          .catch((err: Error) => io.stderr.write(`herald listen: test delivery: ${err.message}\n`));
      }
      await stopped;
    } finally {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      io.signal?.removeEventListener('abort', onSignal);
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
    return 0;
  },
});
