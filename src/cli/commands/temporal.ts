// `herald temporal …`: the operator's commands that talk to Temporal itself, with the same TEMPORAL_* settings as the
// API and the worker (address, namespace, TLS / mTLS files, API key; src/temporal/connection.ts), checked the same way.
import { Client, Connection, WorkflowNotFoundError } from '@temporalio/client';
import { loadConfig, type Config } from '../../config.js';
import { assertSearchAttributes } from '../../temporal/search-attributes-check.js';
import { temporalConnectionOptions } from '../../temporal/connection.js';
import { deliveryStateQuery, deliveryWorkflowId } from '../../../workflows/messages.js';
import { defineCommand } from '../program.js';
import { integerValue } from '../flags.js';
import { CliError, printJson } from '../support.js';
import type { CliCommand, CliIo } from '../types.js';

const ENV_HELP = [
  'environment (the same as the API and the worker; docs/deploy.md, "Secured Temporal"):',
  '  TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, TEMPORAL_TLS, TEMPORAL_TLS_CA_FILE, TEMPORAL_TLS_CERT_FILE,',
  '  TEMPORAL_TLS_KEY_FILE, TEMPORAL_TLS_SERVER_NAME, TEMPORAL_API_KEY / TEMPORAL_API_KEY_FILE',
].join('\n');

const timeoutOption = {
  timeout: { type: 'string', value: 'seconds', help: 'give up after this many seconds, 1 to 300 (default 10)' },
} as const;

const timeoutMs = (value: unknown): number => (integerValue(value, 'timeout', 1, 300) ?? 10) * 1000;

/** Connects with the environment's settings (a bad file or combination fails here, naming the variable). */
async function connect(io: CliIo, ms: number): Promise<{ config: Config; connection: Connection; tls: object }> {
  const config = loadConfig(io.env); // ConfigError: printed as is, exit 1
  const options = temporalConnectionOptions(config);
  try {
    const connection = await Connection.connect({ ...options, connectTimeout: ms });
    const tls = {
      tls: options.tls !== undefined,
      mtls: Boolean(options.tls?.clientCertPair),
      apiKey: !!options.apiKey,
    };
    return { config, connection, tls };
  } catch (err) {
    throw new CliError(`cannot connect to Temporal at ${config.TEMPORAL_ADDRESS}: ${(err as Error).message}`);
  }
}

/** Runs `fn` on the connection within the deadline, then closes it; a failure names what was being done. */
async function withConnection<T>(io: CliIo, ms: number, fn: (c: Awaited<ReturnType<typeof connect>>) => Promise<T>) {
  const c = await connect(io, ms);
  try {
    return await c.connection.withDeadline(Date.now() + ms, () => fn(c));
  } finally {
    await c.connection.close();
  }
}

const seconds = (d: { seconds?: unknown } | null | undefined): number | null =>
  d?.seconds === undefined || d.seconds === null ? null : Number(d.seconds);

export const temporalCommands: readonly CliCommand[] = [
  defineCommand({
    name: 'temporal check',
    summary:
      "Operator: reach Temporal with the TEMPORAL_* settings; the namespace, its retention, Herald's search attributes",
    options: timeoutOption,
    notes: ENV_HELP,
    async action({ values }, io) {
      const ms = timeoutMs(values.timeout);
      const report = await withConnection(io, ms, async ({ config, connection, tls }) => {
        const namespace = config.TEMPORAL_NAMESPACE;
        const info = await connection.workflowService.getSystemInfo({});
        const ns = await connection.workflowService.describeNamespace({ namespace }).catch((err: Error) => {
          throw new CliError(`namespace ${namespace}: ${err.message}`);
        });
        await assertSearchAttributes(connection, namespace);
        return {
          address: config.TEMPORAL_ADDRESS,
          namespace,
          ...tls,
          serverVersion: info.serverVersion ?? null,
          retentionSeconds: seconds(ns.config?.workflowExecutionRetentionTtl),
          searchAttributes: 'registered',
        };
      });
      printJson(io, report);
      return 0;
    },
  }),
  defineCommand({
    name: 'temporal inspect',
    summary: "Operator: a delivery's workflow as Temporal has it now: status, history size, live state (query)",
    args: ['<deliveryId>'],
    options: timeoutOption,
    notes: ENV_HELP,
    async action({ values, positionals }, io) {
      const ms = timeoutMs(values.timeout);
      const workflowId = deliveryWorkflowId(positionals[0]!);
      const report = await withConnection(io, ms, async ({ config, connection }) => {
        const handle = new Client({ connection, namespace: config.TEMPORAL_NAMESPACE }).workflow.getHandle(workflowId);
        const d = await handle.describe().catch((err: unknown) => {
          if (err instanceof WorkflowNotFoundError)
            throw new CliError(`no workflow ${workflowId} in ${config.TEMPORAL_NAMESPACE}`);
          throw err;
        });
        const running = d.status.name === 'RUNNING';
        return {
          workflowId,
          runId: d.runId,
          namespace: config.TEMPORAL_NAMESPACE,
          status: d.status.name,
          startTime: d.startTime.toISOString(),
          closeTime: d.closeTime?.toISOString() ?? null,
          historyLength: d.historyLength,
          historySizeBytes: d.historySize ?? null,
          searchAttributes: Object.fromEntries(d.typedSearchAttributes.getAll().map((p) => [p.key.name, p.value])),
          // A running workflow answers from its worker: null when none polls (or it did not answer in time).
          state: running ? await handle.query(deliveryStateQuery).catch(() => null) : null,
        };
      });
      printJson(io, report);
      return 0;
    },
  }),
];
