import type { AdminDelivery } from '../../api/schemas/admin-deliveries.js';
import { adminClient } from '../credentials.js';
import { listingOptions, printListing, shortTime, type Column } from '../output.js';
import { parseCommandArgs, printJson } from '../support.js';
import type { CliCommand, CliIo } from '../types.js';
import { deliveryColumns, printDelivery } from './deliveries.js';

// `herald admin deliveries …`: the operator's view over the internal admin API (HERALD_ADMIN_TOKEN). Operator
// commands that share a noun with an integrator command live under `admin`, so one name never means two things.

const DEFAULT_TEMPORAL_UI = 'http://127.0.0.1:8233';
const ENV_HELP = [
  '  HERALD_ADMIN_TOKEN  the admin bearer token (in a dev checkout, .data/admin.token is used when unset)',
  `  HERALD_TEMPORAL_UI  base URL of the Temporal Web UI for links (default ${DEFAULT_TEMPORAL_UI})`,
].join('\n');

/** The Temporal Web UI page of a delivery's workflow (its latest run). */
export const temporalUiLink = (env: CliIo['env'], d: Pick<AdminDelivery, 'namespace' | 'workflowId'>): string =>
  `${(env.HERALD_TEMPORAL_UI?.trim() || DEFAULT_TEMPORAL_UI).replace(/\/$/, '')}/namespaces/${encodeURIComponent(
    d.namespace,
  )}/workflows/${encodeURIComponent(d.workflowId)}`;

const columns: readonly Column<AdminDelivery>[] = [
  ...(deliveryColumns as readonly Column<AdminDelivery>[]).slice(0, 1),
  ['integrator', (d) => d.integratorId],
  ['subscription', (d) => d.subscriptionId],
  ...(deliveryColumns as readonly Column<AdminDelivery>[]).slice(1),
];

const withWorkflow = (env: CliIo['env'], d: AdminDelivery): Array<readonly [string, unknown]> => [
  ['integrator', d.integratorId],
  ['workflow', `${d.workflowId} (namespace ${d.namespace})`],
  ['temporal ui', temporalUiLink(env, d)],
];

export const adminDeliveryCommands: readonly CliCommand[] = [
  {
    name: 'admin deliveries list',
    summary: "Operator: every integrator's deliveries, newest first (filters: status, subscription, integrator, since)",
    usage: [
      'herald admin deliveries list [--status pending|succeeded|failed|cancelled] [--subscription ID]',
      '       [--integrator ID] [--since ISO_TIME] [--limit N] [--cursor C] [--all] [--json]',
      '',
      ENV_HELP,
    ].join('\n'),
    async run(args, io) {
      const options = {
        ...listingOptions,
        status: { type: 'string' },
        subscription: { type: 'string' },
        integrator: { type: 'string' },
        since: { type: 'string' },
      } as const;
      const { values } = parseCommandArgs(args, options, 0);
      const text = (name: keyof typeof options) => values[name] as string | undefined;
      const admin = adminClient(io.env);
      const filters = {
        status: text('status') as never,
        subscriptionId: text('subscription'),
        integratorId: text('integrator'),
        since: text('since'),
        limit: text('limit'),
      };
      await printListing(
        io,
        { json: values.json === true, all: values.all === true, command: 'herald admin deliveries list' },
        async (cursor) => {
          const page = await admin.listDeliveriesPage({ ...filters, cursor });
          return { items: page.deliveries, nextCursor: page.nextCursor, raw: page };
        },
        columns,
        text('cursor'),
      );
      return 0;
    },
  },
  {
    name: 'admin deliveries inspect',
    summary: 'Operator: a delivery with its attempts, next attempt time and Temporal UI link',
    usage: `herald admin deliveries inspect <deliveryId> [--json]\n\n${ENV_HELP}`,
    async run(args, io) {
      const { values, positionals } = parseCommandArgs(args, { json: { type: 'boolean' } }, 1);
      const d = await adminClient(io.env).getDelivery(positionals[0]!);
      if (values.json) printJson(io, { ...d, temporalUi: temporalUiLink(io.env, d) });
      else printDelivery(io, d, withWorkflow(io.env, d));
      return 0;
    },
  },
  {
    name: 'admin deliveries retry',
    summary: 'Operator: attempt a delivery now',
    usage: `herald admin deliveries retry <deliveryId> [--json]\n\n${ENV_HELP}`,
    async run(args, io) {
      const { values, positionals } = parseCommandArgs(args, { json: { type: 'boolean' } }, 1);
      const d = await adminClient(io.env).retryDelivery(positionals[0]!);
      if (values.json) printJson(io, d);
      else
        io.stdout.write(
          `retrying ${d.id}: ${d.status}, attempts so far ${d.attemptCount}, next ${shortTime(d.nextAttemptAt)}\n`,
        );
      return 0;
    },
  },
];
