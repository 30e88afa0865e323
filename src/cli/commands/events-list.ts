import type { EventHistoryItem } from '../../client/events.js';
import { integratorClient } from '../credentials.js';
import { createdOptions, keyFlag, listingOptions } from '../flags.js';
import { printListing, shortTime, type Column } from '../output.js';
import { defineCommand } from '../program.js';

const columns: readonly Column<EventHistoryItem>[] = [
  ['id', (e) => e.id],
  ['event type', (e) => e.eventType],
  ['occurred', (e) => shortTime(e.occurredAt)],
  ['account', (e) => e.accountId],
  ['transaction', (e) => e.transactionId],
  ['created', (e) => shortTime(e.createdAt)],
];

/** `herald events list`: the integrator's event history (GET /v1/query/events), signed. */
export const eventsListCommand = defineCommand({
  name: 'events list',
  summary: 'The event history, newest first (a page, or --all)',
  options: {
    account: { type: 'string', value: 'id', help: "only this account's events" },
    user: { type: 'string', value: 'id', help: "only this user's events" },
    transaction: { type: 'string', value: 'id', help: "only this transaction's events" },
    type: { type: 'string', value: 'type', help: 'only events of this type' },
    ...createdOptions,
    ...listingOptions,
    key: keyFlag,
  },
  async action({ values }, io) {
    const text = (name: string) => values[name] as string | undefined;
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
});
