import type { EventHistoryItem } from '../../client/events.js';
import { integratorClient } from '../credentials.js';
import { listingOptions, printListing, shortTime, type Column } from '../output.js';
import { parseCommandArgs } from '../support.js';
import type { CliCommand } from '../types.js';

const columns: readonly Column<EventHistoryItem>[] = [
  ['id', (e) => e.id],
  ['event type', (e) => e.eventType],
  ['occurred', (e) => shortTime(e.occurredAt)],
  ['account', (e) => e.accountId],
  ['transaction', (e) => e.transactionId],
  ['created', (e) => shortTime(e.createdAt)],
];

/** `herald events list`: the integrator's event history (GET /v1/query/events), signed. */
export const eventsListCommand: CliCommand = {
  name: 'events list',
  summary: 'The event history, newest first (a page, or --all)',
  usage: [
    'herald events list [--account ID] [--user ID] [--transaction ID] [--type EVENT_TYPE]',
    '       [--after ISO_TIME] [--before ISO_TIME] [--limit N] [--cursor C] [--all] [--json] [--key FILE]',
    '',
    '  --after/--before  exclusive bounds on createdAt',
    '  --key FILE        the integrator private key (PEM); else HERALD_KEY_FILE, HERALD_PRIVATE_KEY, .data/integrator.pem',
  ].join('\n'),
  async run(args, io) {
    const options = {
      ...listingOptions,
      key: { type: 'string' },
      account: { type: 'string' },
      user: { type: 'string' },
      transaction: { type: 'string' },
      type: { type: 'string' },
      after: { type: 'string' },
      before: { type: 'string' },
    } as const;
    const { values } = parseCommandArgs(args, options, 0);
    const text = (name: keyof typeof options) => values[name] as string | undefined;
    const client = integratorClient(io.env, text('key'));
    const filters = {
      accountId: text('account'),
      userId: text('user'),
      transactionId: text('transaction'),
      eventType: text('type') as never,
      createdAfter: text('after'),
      createdBefore: text('before'),
      limit: text('limit') as never,
    };
    await printListing(
      io,
      { json: values.json === true, all: values.all === true, command: 'herald events list' },
      async (cursor) => {
        const page = await client.listEventsPage({ ...filters, cursor });
        return { items: page.events, nextCursor: page.nextCursor, raw: page };
      },
      columns,
      text('cursor'),
    );
    return 0;
  },
};
