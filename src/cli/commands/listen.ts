import { readFileSync } from 'node:fs';
import type { HeraldClient, Subscription } from '../../client/herald-client.js';
import { WebhookVerificationError, WebhookVerifier } from '../../receiver/index.js';
import { devDataDir, integratorClient } from '../credentials.js';
import { DEFAULT_LISTEN_PORT, devTlsFiles, LISTEN_HOST } from '../listen/dev-listener.js';
import { startLocalReceiver, type Received } from '../listen/local-receiver.js';
import { CliError, parseCommandArgs, UsageError } from '../support.js';
import type { CliCommand, CliIo } from '../types.js';

const usage = [
  'herald listen [--port N] [--status CODE] [--forward-to URL] [--event-type TYPE]… [--subscription ID]',
  '              [--test] [--count N] [--json] [--key FILE] [--cert FILE --cert-key FILE]',
  '',
  '  A local receiver for development: an HTTPS listener on 127.0.0.1 that `npm run dev` lets deliveries reach',
  `  (https://${LISTEN_HOST}:PORT/), subscribed to the integrator's events; every delivery is verified with`,
  '  herald/receiver and printed as one line: time, event type, delivery id, attempt, verified or why not, status.',
  '',
  `  --port N            listening port (default ${DEFAULT_LISTEN_PORT}; 0 = any free port)`,
  '  --status CODE       answer verified deliveries with CODE (default 204), e.g. 500 to watch the retries',
  '  --forward-to URL    send each verified delivery on to a local (loopback) URL and answer its status',
  '  --event-type TYPE   subscribe to these types only (repeat, or comma-separated); default all',
  '  --subscription ID   use this subscription (its URL must point here) instead of finding or creating one',
  '  --test              send a webhook.test delivery once listening',
  '  --count N           stop after N deliveries (default: run until Ctrl-C)',
  '  --json              one JSON object per delivery instead of a line',
  '  --key FILE          the integrator private key (PEM); else HERALD_KEY_FILE, HERALD_PRIVATE_KEY, .data/integrator.pem',
  "  --cert/--cert-key   the listener's TLS certificate and key (default: the dev stack's, in .data/tls/)",
].join('\n');

const options = {
  port: { type: 'string' },
  status: { type: 'string' },
  'forward-to': { type: 'string' },
  'event-type': { type: 'string', multiple: true },
  subscription: { type: 'string' },
  test: { type: 'boolean' },
  count: { type: 'string' },
  json: { type: 'boolean' },
  key: { type: 'string' },
  cert: { type: 'string' },
  'cert-key': { type: 'string' },
} as const;

function integerOption(value: unknown, name: string, min: number, max: number): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!/^\d+$/.test(String(value)) || n < min || n > max)
    throw new UsageError(`--${name} must be an integer from ${min} to ${max}`);
  return n;
}

function loopbackUrl(value: unknown): URL | undefined {
  if (value === undefined) return undefined;
  let url: URL;
  try {
    url = new URL(String(value));
  } catch {
    throw new UsageError('--forward-to must be an absolute URL');
  }
  if (!['http:', 'https:'].includes(url.protocol) || !['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname))
    throw new UsageError('--forward-to must be an http(s) URL on this machine (127.0.0.1, localhost or [::1])');
  return url;
}

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

export const listenCommand: CliCommand = {
  name: 'listen',
  summary: 'Receive, verify and print deliveries on this machine (development; with `npm run dev`)',
  usage,
  async run(args, io: CliIo) {
    const { values } = parseCommandArgs(args, options, 0);
    const text = (name: keyof typeof options) => values[name] as string | undefined;
    const port = integerOption(text('port'), 'port', 0, 65535) ?? DEFAULT_LISTEN_PORT;
    const status = integerOption(text('status'), 'status', 200, 599);
    const count = integerOption(text('count'), 'count', 1, 1_000_000);
    const forwardTo = loopbackUrl(text('forward-to'));
    const eventTypes = (values['event-type'] as string[] | undefined)?.flatMap((t) => t.split(',')).filter(Boolean);
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
};
