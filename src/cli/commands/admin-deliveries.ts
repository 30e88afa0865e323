import type { AdminDelivery } from '../../api/schemas/admin-deliveries.js';
import { adminClient } from '../credentials.js';
import { deliveryStatusFlag, jsonFlag, listingOptions } from '../flags.js';
import { printListing, shortTime, type Column } from '../output.js';
import { defineCommand } from '../program.js';
import { printJson } from '../support.js';
import type { CliCommand, CliIo } from '../types.js';
import { deliveryColumns, printDelivery } from './deliveries.js';

// `herald admin deliveries …`: the operator's view over the internal admin API (HERALD_ADMIN_TOKEN). Operator
// commands that share a noun with an integrator command live under `admin`, so one name never means two things.

const DEFAULT_TEMPORAL_UI = 'http://127.0.0.1:8233';
const ENV_HELP = [
  'environment:',
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
  defineCommand({
    name: 'admin deliveries list',
    summary: "Operator: every integrator's deliveries, newest first (filters: status, subscription, integrator, since)",
    options: {
      status: deliveryStatusFlag,
      subscription: { type: 'string', value: 'id', help: "only this subscription's deliveries" },
      integrator: { type: 'string', value: 'id', help: "only this integrator's deliveries" },
      since: { type: 'string', value: 'time', help: 'created at or after this ISO time' },
      ...listingOptions,
    },
    notes: ENV_HELP,
    async action({ values }, io) {
      const text = (name: string) => values[name] as string | undefined;
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
  }),
  defineCommand({
    name: 'admin deliveries inspect',
    summary: 'Operator: a delivery with its attempts, next attempt time and Temporal UI link',
    args: ['<deliveryId>'],
    options: { json: jsonFlag },
    notes: ENV_HELP,
    async action({ values, positionals }, io) {
      const d = await adminClient(io.env).getDelivery(positionals[0]!);
      if (values.json) printJson(io, { ...d, temporalUi: temporalUiLink(io.env, d) });
      else printDelivery(io, d, withWorkflow(io.env, d));
      return 0;
    },
  }),
  defineCommand({
    name: 'admin deliveries retry',
    summary: 'Operator: attempt a delivery now',
    args: ['<deliveryId>'],
    options: { json: jsonFlag },
    notes: ENV_HELP,
    async action({ values, positionals }, io) {
      const d = await adminClient(io.env).retryDelivery(positionals[0]!);
      if (values.json) printJson(io, d);
      else
        io.stdout.write(
          `retrying ${d.id}: ${d.status}, attempts so far ${d.attemptCount}, next ${shortTime(d.nextAttemptAt)}\n`,
        );
      return 0;
    },
  }),
];
