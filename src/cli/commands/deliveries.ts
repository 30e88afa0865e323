import type { Delivery, DeliveryAttempt, DeliveryWithAttempts } from '../../client/herald-client.js';
import { integratorClient } from '../credentials.js';
import { createdOptions, deliveryStatusFlag, listingOptions, signedOptions } from '../flags.js';
import { formatFields, formatTable, printListing, shortTime, type Column } from '../output.js';
import { defineCommand } from '../program.js';
import { printJson } from '../support.js';
import type { CliCommand, CliIo } from '../types.js';

// `herald deliveries …` and `herald subscriptions test`: the integrator's delivery history, signed.

export const deliveryColumns: readonly Column<Delivery>[] = [
  ['id', (d) => d.id],
  ['status', (d) => d.status],
  ['event type', (d) => d.eventType],
  ['attempts', (d) => d.attemptCount],
  ['last status', (d) => d.lastResponseSummary?.status],
  ['next attempt', (d) => shortTime(d.nextAttemptAt)],
  ['created', (d) => shortTime(d.createdAt)],
];

export const attemptColumns: readonly Column<DeliveryAttempt>[] = [
  ['#', (a) => a.attemptNumber],
  ['outcome', (a) => a.outcome],
  ['status', (a) => a.statusCode],
  ['ms', (a) => a.latencyMs],
  ['signed at', (a) => shortTime(a.signedAt)],
  ['actor', (a) => a.actor],
  ['error', (a) => a.error],
];

/** A delivery's fields (plus `extra` lines), then its attempts. */
export function printDelivery(
  io: CliIo,
  d: Delivery & { attempts?: DeliveryAttempt[] },
  extra: ReadonlyArray<readonly [string, unknown]> = [],
): void {
  io.stdout.write(
    formatFields([
      ['id', d.id],
      ['status', d.status],
      ['event', `${d.eventType} ${d.eventId}`],
      ['subscription', d.subscriptionId],
      ['attempts', d.attemptCount],
      ['next attempt', shortTime(d.nextAttemptAt)],
      ['terminal reason', d.terminalReason],
      ['last response', d.lastResponseSummary ? String(d.lastResponseSummary.status) : null],
      ['created', shortTime(d.createdAt)],
      ['updated', shortTime(d.updatedAt)],
      ...extra,
    ]),
  );
  if (d.attempts)
    io.stdout.write(`\nattempts:\n${d.attempts.length ? formatTable(d.attempts, attemptColumns) : '(none yet)\n'}`);
}

const single = (
  name: string,
  summary: string,
  act: (client: ReturnType<typeof integratorClient>, id: string) => Promise<Delivery | DeliveryWithAttempts>,
): CliCommand =>
  defineCommand({
    name: `deliveries ${name}`,
    summary,
    args: ['<deliveryId>'],
    options: signedOptions,
    async action({ values, positionals }, io) {
      const result = await act(integratorClient(io.env, values.key as string | undefined), positionals[0]!);
      if (values.json) printJson(io, result);
      else printDelivery(io, result);
      return 0;
    },
  });

export const deliveryCommands: readonly CliCommand[] = [
  defineCommand({
    name: 'deliveries list',
    summary: 'The delivery history, newest first (a page, or --all)',
    options: {
      subscription: { type: 'string', value: 'id', help: "only this subscription's deliveries" },
      event: { type: 'string', value: 'id', help: "only this event's deliveries" },
      status: deliveryStatusFlag,
      type: { type: 'string', value: 'type', help: 'only deliveries of events of this type' },
      ...createdOptions,
      ...listingOptions,
      ...signedOptions,
    },
    async action({ values }, io) {
      const client = integratorClient(io.env, values.key as string | undefined);
      const query = {
        subscriptionId: values.subscription as string | undefined,
        eventId: values.event as string | undefined,
        status: values.status as never,
        eventType: values.type as never,
        createdAfter: values.after as string | undefined,
        createdBefore: values.before as string | undefined,
        limit: values.limit as never,
      };
      await printListing(
        io,
        { json: values.json === true, all: values.all === true, command: 'herald deliveries list' },
        async (cursor) => {
          const page = await client.listDeliveriesPage({ ...query, cursor });
          return { items: page.deliveries, nextCursor: page.nextCursor, raw: page };
        },
        deliveryColumns,
        values.cursor as string | undefined,
      );
      return 0;
    },
  }),
  single('get', 'A delivery with its attempts', (c, id) => c.getDelivery(id)),
  single('retry', 'Attempt a delivery now (a waiting one skips its wait)', (c, id) => c.retryDelivery(id)),
  single('cancel', 'Cancel a pending delivery (no further attempt)', (c, id) => c.cancelDelivery(id)),
  defineCommand({
    name: 'deliveries summary',
    summary: "A subscription's deliveries counted by status, and its oldest pending one",
    args: ['<subscriptionId>'],
    options: signedOptions,
    async action({ values, positionals }, io) {
      const summary = await integratorClient(io.env, values.key as string | undefined).deliverySummary(positionals[0]!);
      if (values.json) printJson(io, summary);
      else {
        const oldest = summary.oldestPending;
        io.stdout.write(
          formatFields([
            // A count that reached the limit is a lower bound.
            ...Object.entries(summary.counts).map(([s, n]) => [s, n >= summary.countLimit ? `${n}+` : n] as const),
            [
              'oldest pending',
              oldest && `${oldest.id} (${shortTime(oldest.createdAt)}, ${oldest.attemptCount} attempts)`,
            ],
          ]),
        );
      }
      return 0;
    },
  }),
];

/** `herald subscriptions test`: shown as a delivery with its first attempt; exit 1 unless that attempt succeeded. */
export const subscriptionTestCommand = defineCommand({
  name: 'subscriptions test',
  summary: 'Send a signed webhook.test delivery; answers once its first attempt is made',
  args: ['<subscriptionId>'],
  options: signedOptions,
  async action({ values, positionals }, io) {
    const sent = await integratorClient(io.env, values.key as string | undefined).sendTestDelivery(positionals[0]!);
    if (values.json) printJson(io, sent);
    else printDelivery(io, { ...sent.delivery, attempts: [sent.attempt] }, [['test event', sent.event.id]]);
    return sent.attempt.outcome === 'succeeded' ? 0 : 1;
  },
});
