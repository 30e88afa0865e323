import { eventTypeFlag, keyFlag } from '../flags.js';
import { UsageError } from '../support.js';
import { DEFAULT_LISTEN_PORT, LISTEN_HOST } from './dev-listener.js';

// `herald listen`'s flags and the checks of its values beyond their syntax.

export const listenNotes = [
  'A local receiver for development: an HTTPS listener on 127.0.0.1 that `npm run dev` lets deliveries reach',
  `(https://${LISTEN_HOST}:PORT/), subscribed to the integrator's events; every delivery is verified with`,
  'herald/receiver and printed as one line: time, event type, delivery id, attempt, verified or why not, status.',
].join('\n');

export const listenOptions = {
  port: { type: 'string', value: 'n', help: `listening port (default ${DEFAULT_LISTEN_PORT}; 0 = any free port)` },
  status: {
    type: 'string',
    value: 'code',
    help: 'answer verified deliveries with this status (default 204), e.g. 500 to watch the retries',
  },
  'forward-to': {
    type: 'string',
    value: 'url',
    help: 'send each verified delivery on to a local (loopback) URL and answer its status',
  },
  'event-type': { ...eventTypeFlag, help: 'subscribe to these types only (repeat, or comma-separated); default all' },
  subscription: {
    type: 'string',
    value: 'id',
    help: 'use this subscription (its URL must point here) instead of finding or creating one',
  },
  test: { type: 'boolean', help: 'send a webhook.test delivery once listening' },
  count: { type: 'string', value: 'n', help: 'stop after n deliveries (default: run until Ctrl-C)' },
  json: { type: 'boolean', help: 'one JSON object per delivery instead of a line' },
  key: keyFlag,
  cert: {
    type: 'string',
    value: 'file',
    help: "the listener's TLS certificate (default: the dev stack's, .data/tls/)",
  },
  'cert-key': { type: 'string', value: 'file', help: "the listener's TLS key (default: the dev stack's, .data/tls/)" },
} as const;

export function loopbackUrl(value: unknown): URL | undefined {
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
