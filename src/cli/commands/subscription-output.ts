import type { Subscription } from '../../client/herald-client.js';
import { formatFields, formatTable, shortTime, type Column } from '../output.js';
import { printJson } from '../support.js';
import type { CliIo } from '../types.js';

// How `herald subscriptions …` shows subscriptions: a table of many; one as fields, then its signing keys.

export const subscriptionColumns: readonly Column<Subscription>[] = [
  ['id', (s) => s.id],
  ['status', (s) => s.status],
  ['url', (s) => s.url],
  ['event types', (s) => (s.eventTypes.length === 0 ? '(all)' : s.eventTypes.join(','))],
  ['created', (s) => shortTime(s.createdAt)],
];

/** One subscription: fields, then its keys; or the API's JSON. */
export function printSubscription(io: CliIo, s: Subscription, json: boolean): void {
  if (json) return printJson(io, s);
  io.stdout.write(
    formatFields([
      ['id', s.id],
      ['url', s.url],
      ['status', s.pausedReason ? `${s.status} (${s.pausedReason})` : s.status],
      ['event types', s.eventTypes.length === 0 ? '(all subscribable types)' : s.eventTypes.join(', ')],
      ['ordering', s.ordering === 'fifo' ? 'fifo (in order, one at a time)' : 'none (any order)'],
      ['description', s.description],
      ['key id', s.keyId],
      ['public key', s.publicKey],
      ['created', shortTime(s.createdAt)],
      ['updated', shortTime(s.updatedAt)],
    ]),
  );
  io.stdout.write(
    `\nkeys:\n${formatTable(s.keys, [
      ['key id', (k) => k.keyId],
      ['status', (k) => k.status],
      ['public key', (k) => k.publicKey],
      ['created', (k) => shortTime(k.createdAt)],
    ])}`,
  );
}
