import type { Subscription, UpdateSubscriptionInput } from '../../client/herald-client.js';
import type { NameableEventType } from '../../domain/event-types.js';
import { integratorClient, KEY_HELP, signedOptions } from '../credentials.js';
import { formatFields, formatTable, listingOptions, printListing, shortTime, type Column } from '../output.js';
import { parseCommandArgs, printJson, UsageError } from '../support.js';
import type { CliCommand, CliIo } from '../types.js';

// `herald subscriptions …`: the integrator's webhook subscriptions, signed with the integrator's key.

const signed = signedOptions;

const columns: readonly Column<Subscription>[] = [
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

const eventTypesOf = (values: Record<string, unknown>): NameableEventType[] | undefined => {
  const given = values['event-type'] as string[] | undefined;
  if (values['all-event-types']) {
    if (given) throw new UsageError('give --event-type or --all-event-types, not both');
    return [];
  }
  return given?.flatMap((t) => t.split(',')).filter((t) => t !== '') as NameableEventType[] | undefined;
};

const idCommand = (
  name: string,
  summary: string,
  act: (client: ReturnType<typeof integratorClient>, id: string) => Promise<Subscription | void>,
  extra = '',
): CliCommand => ({
  name: `subscriptions ${name}`,
  summary,
  usage: `herald subscriptions ${name} <subscriptionId> [--json] [--key FILE]${extra}\n\n${KEY_HELP}`,
  async run(args, io) {
    const { values, positionals } = parseCommandArgs(args, signed, 1);
    const result = await act(integratorClient(io.env, values.key as string | undefined), positionals[0]!);
    if (result) printSubscription(io, result, values.json === true);
    else if (values.json) printJson(io, { id: positionals[0], deleted: true });
    else io.stdout.write(`deleted ${positionals[0]}\n`);
    return 0;
  },
});

export const subscriptionCommands: readonly CliCommand[] = [
  {
    name: 'subscriptions create',
    summary: 'Subscribe an HTTPS URL to event types (all when none given)',
    usage: [
      'herald subscriptions create --url URL [--event-type TYPE]… [--description TEXT] [--json] [--key FILE]',
      '',
      '  --event-type  repeat it, or give a comma-separated list; none = every subscribable type',
      KEY_HELP,
    ].join('\n'),
    async run(args, io) {
      const options = {
        ...signed,
        url: { type: 'string' },
        'event-type': { type: 'string', multiple: true },
        description: { type: 'string' },
      } as const;
      const { values } = parseCommandArgs(args, options, 0);
      if (!values.url) throw new UsageError('--url is required');
      const client = integratorClient(io.env, values.key as string | undefined);
      const eventTypes = eventTypesOf(values);
      const created = await client.createSubscription({
        url: values.url as string,
        ...(eventTypes ? { eventTypes } : {}),
        ...(values.description !== undefined ? { description: values.description as string } : {}),
      });
      printSubscription(io, created, values.json === true);
      return 0;
    },
  },
  {
    name: 'subscriptions list',
    summary: 'List subscriptions, newest first (a page, or --all)',
    usage: `herald subscriptions list [--status enabled|disabled|paused] [--limit N] [--cursor C] [--all] [--json] [--key FILE]\n\n${KEY_HELP}`,
    async run(args, io) {
      const { values } = parseCommandArgs(args, { ...signed, ...listingOptions, status: { type: 'string' } }, 0);
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
  },
  idCommand('get', 'Show a subscription with all its signing keys', (c, id) => c.getSubscription(id)),
  {
    name: 'subscriptions update',
    summary: 'Change the URL, event types, description or status of a subscription',
    usage: [
      'herald subscriptions update <subscriptionId> [--url URL] [--event-type TYPE]… [--all-event-types]',
      '       [--description TEXT | --clear-description] [--enable | --disable] [--json] [--key FILE]',
      '',
      KEY_HELP,
    ].join('\n'),
    async run(args, io) {
      const options = {
        ...signed,
        url: { type: 'string' },
        'event-type': { type: 'string', multiple: true },
        'all-event-types': { type: 'boolean' },
        description: { type: 'string' },
        'clear-description': { type: 'boolean' },
        enable: { type: 'boolean' },
        disable: { type: 'boolean' },
      } as const;
      const { values, positionals } = parseCommandArgs(args, options, 1);
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
      if (Object.keys(changes).length === 0) throw new UsageError('nothing to change: give at least one option');
      const client = integratorClient(io.env, values.key as string | undefined);
      printSubscription(io, await client.updateSubscription(positionals[0]!, changes), values.json === true);
      return 0;
    },
  },
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
