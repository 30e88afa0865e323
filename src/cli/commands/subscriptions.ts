import type { Subscription, SubscriptionOrdering, UpdateSubscriptionInput } from '../../client/herald-client.js';
import type { NameableEventType } from '../../domain/event-types.js';
import { integratorClient } from '../credentials.js';
import { eventTypeFlag, eventTypesOf as listed, listingOptions, signedOptions } from '../flags.js';
import { printListing } from '../output.js';
import { defineCommand } from '../program.js';
import { printJson, UsageError } from '../support.js';
import type { CliCommand } from '../types.js';
import { printSubscription, subscriptionColumns as columns } from './subscription-output.js';

// `herald subscriptions …`: the integrator's webhook subscriptions, signed with the integrator's key.

const eventTypesOf = (values: Record<string, unknown>): NameableEventType[] | undefined => {
  if (values['all-event-types']) {
    if (values['event-type']) throw new UsageError('give --event-type or --all-event-types, not both');
    return [];
  }
  return listed(values['event-type']) as NameableEventType[] | undefined;
};

const descriptionFlag = { type: 'string', value: 'text', help: 'a note for your own use' } as const;

const ORDERINGS: readonly SubscriptionOrdering[] = ['fifo', 'none'];

const orderingFlag = {
  type: 'string',
  value: 'fifo|none',
  help: 'fifo: deliveries one at a time, in order (a failed one pauses the subscription); none: any order, fastest',
} as const;

const orderingOf = (value: unknown): SubscriptionOrdering | undefined => {
  if (value === undefined) return undefined;
  if (!ORDERINGS.includes(value as SubscriptionOrdering)) throw new UsageError('--ordering must be fifo or none');
  return value as SubscriptionOrdering;
};

const idCommand = (
  name: string,
  summary: string,
  act: (client: ReturnType<typeof integratorClient>, id: string) => Promise<Subscription | void>,
): CliCommand =>
  defineCommand({
    name: `subscriptions ${name}`,
    summary,
    args: ['<subscriptionId>'],
    options: signedOptions,
    async action({ values, positionals }, io) {
      const result = await act(integratorClient(io.env, values.key as string | undefined), positionals[0]!);
      if (result) printSubscription(io, result, values.json === true);
      else if (values.json) printJson(io, { id: positionals[0], deleted: true });
      else io.stdout.write(`deleted ${positionals[0]}\n`);
      return 0;
    },
  });

export const subscriptionCommands: readonly CliCommand[] = [
  defineCommand({
    name: 'subscriptions create',
    summary: 'Subscribe an HTTPS URL to event types (all when none given)',
    options: {
      url: { type: 'string', value: 'url', help: 'the HTTPS URL deliveries are sent to (required)' },
      'event-type': eventTypeFlag,
      description: descriptionFlag,
      ordering: { ...orderingFlag, help: `${orderingFlag.help} (default none)` },
      ...signedOptions,
    },
    async action({ values }, io) {
      if (!values.url) throw new UsageError('--url is required');
      const client = integratorClient(io.env, values.key as string | undefined);
      const eventTypes = eventTypesOf(values);
      const ordering = orderingOf(values.ordering);
      const created = await client.createSubscription({
        url: values.url as string,
        ...(eventTypes ? { eventTypes } : {}),
        ...(values.description !== undefined ? { description: values.description as string } : {}),
        ...(ordering ? { ordering } : {}),
      });
      printSubscription(io, created, values.json === true);
      return 0;
    },
  }),
  defineCommand({
    name: 'subscriptions list',
    summary: 'List subscriptions, newest first (a page, or --all)',
    options: {
      status: { type: 'string', value: 'status', help: 'enabled, disabled or paused' },
      ...listingOptions,
      ...signedOptions,
    },
    async action({ values }, io) {
      const client = integratorClient(io.env, values.key as string | undefined);
      const query = { status: values.status as never, limit: values.limit as never };
      await printListing(
        io,
        { json: values.json === true, all: values.all === true, command: 'herald subscriptions list' },
        async (cursor) => {
          const page = await client.listSubscriptionsPage({ ...query, cursor });
          return { items: page.subscriptions, nextCursor: page.nextCursor, raw: page };
        },
        columns,
        values.cursor as string | undefined,
      );
      return 0;
    },
  }),
  idCommand('get', 'Show a subscription with all its signing keys', (c, id) => c.getSubscription(id)),
  defineCommand({
    name: 'subscriptions update',
    summary: 'Change the URL, event types, description, status or ordering of a subscription',
    args: ['<subscriptionId>'],
    options: {
      url: { type: 'string', value: 'url', help: 'the new HTTPS URL' },
      'event-type': { ...eventTypeFlag, help: 'the new event types; repeat it, or give a comma-separated list' },
      'all-event-types': { type: 'boolean', help: 'every subscribable type from now on' },
      description: descriptionFlag,
      'clear-description': { type: 'boolean', help: 'remove the description' },
      enable: { type: 'boolean', help: 'enable the subscription' },
      disable: { type: 'boolean', help: 'disable it: no new deliveries' },
      ordering: { ...orderingFlag, help: `${orderingFlag.help}; applies to deliveries ingested from now on` },
      ...signedOptions,
    },
    async action({ values, positionals }, io) {
      if (values.enable && values.disable) throw new UsageError('give --enable or --disable, not both');
      if (values.description !== undefined && values['clear-description'])
        throw new UsageError('give --description or --clear-description, not both');
      const changes: UpdateSubscriptionInput = {};
      if (values.url !== undefined) changes.url = values.url as string;
      const eventTypes = eventTypesOf(values);
      if (eventTypes) changes.eventTypes = eventTypes;
      if (values.description !== undefined) changes.description = values.description as string;
      if (values['clear-description']) changes.description = null;
      if (values.enable || values.disable) changes.status = values.enable ? 'enabled' : 'disabled';
      const ordering = orderingOf(values.ordering);
      if (ordering) changes.ordering = ordering;
      if (Object.keys(changes).length === 0) throw new UsageError('nothing to change: give at least one option');
      const client = integratorClient(io.env, values.key as string | undefined);
      printSubscription(io, await client.updateSubscription(positionals[0]!, changes), values.json === true);
      return 0;
    },
  }),
  idCommand('delete', 'Delete a subscription; its pending deliveries end as cancelled', (c, id) =>
    c.deleteSubscription(id),
  ),
  idCommand('rotate-key', 'Replace the signing key (earlier keys stay listed, inactive)', (c, id) =>
    c.rotateSubscriptionKey(id),
  ),
  idCommand('pause', 'Pause: deliveries are made and held, none attempted, until resumed', (c, id) =>
    c.pauseSubscription(id),
  ),
  idCommand('resume', 'Resume: held deliveries are released, oldest first, at a bounded rate', (c, id) =>
    c.resumeSubscription(id),
  ),
];
