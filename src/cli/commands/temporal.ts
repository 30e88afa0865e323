// `herald temporal check|setup`: is the namespace ready for Herald (its search attributes, its retention), and make
// it so, through the operator API with the API's and the worker's TEMPORAL_* settings (docs/temporal-cluster.md).
import { msToTs } from '@temporalio/common/lib/time.js';
import {
  addMissingSearchAttributes,
  cloudSearchAttributeCommand,
  RECOMMENDED_RETENTION_SECONDS,
  readSearchAttributes,
  searchAttributeProblem,
  type SearchAttributeState,
} from '../../temporal/namespace.js';
import { defineCommand } from '../program.js';
import { CliError, printJson } from '../support.js';
import type { CliCommand, CliIo } from '../types.js';
import { grpcCode, grpcStatus } from '../../util/grpc-status.js';
import { ENV_HELP, timeoutMs, timeoutOption, withConnection, type TemporalSession } from './temporal-connect.js';
import { temporalInspectCommand } from './temporal-inspect.js';

const seconds = (d: { seconds?: unknown } | null | undefined): number | null =>
  d?.seconds === undefined || d.seconds === null ? null : Number(d.seconds);

/** The server and the namespace as both commands print them; `null` when the namespace does not exist. */
async function describe({ config, connection, tls }: TemporalSession) {
  const namespace = config.TEMPORAL_NAMESPACE;
  const info = await connection.workflowService.getSystemInfo({});
  const ns = await connection.workflowService.describeNamespace({ namespace }).catch((err: unknown) => {
    if (grpcCode(err) === grpcStatus.NOT_FOUND) return null;
    throw new CliError(`namespace ${namespace}: ${(err as Error).message}`, { cause: err });
  });
  const base = { address: config.TEMPORAL_ADDRESS, namespace, ...tls, serverVersion: info.serverVersion ?? null };
  return ns && { ...base, retentionSeconds: seconds(ns.config?.workflowExecutionRetentionTtl) };
}

/**
 * `read` again while the server says the namespace is not found, for up to 5 s: a frontend remembers a namespace it
 * did not find for a second (its registry's negative cache), so one just registered can still be unknown there.
 */
async function onceKnown<T>(read: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + 5_000;
  for (;;) {
    try {
      return await read();
    } catch (err) {
      if (grpcCode(err) !== grpcStatus.NOT_FOUND || Date.now() > deadline) throw err;
      await new Promise((r) => setTimeout(r, 250));
    }
  }
}

const noNamespace = (namespace: string): CliError =>
  new CliError(
    `namespace ${namespace} does not exist: create it with \`herald temporal setup --create-namespace\` or ` +
      `\`temporal operator namespace create --retention 7d ${namespace}\` (Temporal Cloud: in the Cloud UI)`,
  );

/** A note on stderr when closed deliveries are kept for less than the recommended week. */
function noteRetention(io: CliIo, command: string, namespace: string, retention: number | null): void {
  if (retention === null || retention >= RECOMMENDED_RETENTION_SECONDS) return;
  const days = Math.round((retention / 86_400) * 100) / 100;
  io.stderr.write(
    `herald temporal ${command}: note: namespace ${namespace} keeps closed workflows ${days} day${days === 1 ? '' : 's'}, less than ` +
      `the 7 days recommended (docs/deploy.md, "Namespace retention and history size"): ` +
      `temporal operator namespace update --retention 7d ${namespace} ` +
      `(Temporal Cloud: tcld namespace retention set -n ${namespace} --retention-days 7)\n`,
  );
}

/**
 * Raises a namespace's retention shorter than the recommended week to it (a delivery runs 8 h 37 min at most, plus the
 * time a paused subscription holds it; the versioning procedure waits out the retention before removing a branch).
 * Answers false when it was long enough, or when the server refuses (Temporal Cloud: its control plane sets it; the
 * note on stderr names the command).
 */
async function raiseRetention({ config, connection }: TemporalSession, seconds: number | null): Promise<boolean> {
  if (seconds === null || seconds >= RECOMMENDED_RETENTION_SECONDS) return false;
  return await connection.workflowService
    .updateNamespace({
      namespace: config.TEMPORAL_NAMESPACE,
      config: { workflowExecutionRetentionTtl: msToTs(RECOMMENDED_RETENTION_SECONDS * 1000) },
    })
    .then(
      () => true,
      () => false,
    );
}

/** Temporal Cloud's gRPC endpoints: `<ns>.<account>.tmprl.cloud`, `<region>.<cloud>.api.temporal.io`. */
const isTemporalCloud = (address: string): boolean => /\.(tmprl\.cloud|api\.temporal\.io)(:\d+)?$/.test(address);

/**
 * Why adding the search attributes failed. Temporal Cloud manages custom search attributes through its control plane
 * (tcld, the Cloud UI, the Cloud Ops API), not the operator API: the message there names the tcld command.
 */
function refusedSetup(address: string, namespace: string, state: SearchAttributeState, err: unknown): unknown {
  const code = grpcCode(err);
  const refused = code === grpcStatus.PERMISSION_DENIED || code === grpcStatus.UNIMPLEMENTED;
  const transient = code === grpcStatus.UNAVAILABLE || code === grpcStatus.DEADLINE_EXCEEDED;
  // Elsewhere on Cloud, any answer but a refused key or an outage means the call is not served there.
  if (!refused && (!isTemporalCloud(address) || transient || code === grpcStatus.UNAUTHENTICATED)) return err;
  return new CliError(
    `Temporal refused to add search attributes to ${namespace} (${(err as Error).message}). On Temporal Cloud, add ` +
      `them with \`${cloudSearchAttributeCommand(namespace, state)}\` (or in the Cloud UI, or through the Cloud Ops ` +
      "API), then run `herald temporal check`; on a self-hosted server, the credentials need the namespace's admin " +
      'role (docs/temporal-cluster.md)',
  );
}

const checkCommand = defineCommand({
  name: 'temporal check',
  summary:
    "Operator: reach Temporal with the TEMPORAL_* settings; the namespace, its retention, Herald's search attributes",
  options: timeoutOption,
  notes: `exit status 1 when the namespace lacks something Herald needs: \`herald temporal setup\` adds it.\n${ENV_HELP}`,
  async action({ values }, io) {
    const { report, problem } = await withConnection(io, timeoutMs(values.timeout), async (session) => {
      const namespace = session.config.TEMPORAL_NAMESPACE;
      const described = await describe(session);
      if (!described) throw noNamespace(namespace);
      const state = await readSearchAttributes(session.connection, namespace);
      const problem = searchAttributeProblem(namespace, state);
      return { report: { ...described, ready: problem === null, searchAttributes: state }, problem };
    });
    printJson(io, report);
    noteRetention(io, 'check', report.namespace, report.retentionSeconds);
    if (!problem) return 0;
    io.stderr.write(`herald temporal check: ${problem}\n`);
    return 1;
  },
});

const setupCommand = defineCommand({
  name: 'temporal setup',
  summary:
    'Operator: make the namespace ready for Herald: register its search attributes, raise a retention under 7 days (idempotent)',
  options: {
    ...timeoutOption,
    'create-namespace': {
      type: 'boolean',
      help: 'register the namespace (retention 7 days) when it does not exist; self-hosted servers only',
    },
  },
  notes: ENV_HELP,
  async action({ values }, io) {
    const report = await withConnection(io, timeoutMs(values.timeout), async (session) => {
      const { config, connection } = session;
      const namespace = config.TEMPORAL_NAMESPACE;
      let described = await describe(session);
      const createNamespace = !described && values['create-namespace'] === true;
      if (createNamespace) {
        await connection.workflowService.registerNamespace({
          namespace,
          workflowExecutionRetentionPeriod: msToTs(RECOMMENDED_RETENTION_SECONDS * 1000),
        });
        described = await describe(session);
      }
      if (!described) throw noNamespace(namespace);
      const retentionRaised = await raiseRetention(session, described.retentionSeconds);
      if (retentionRaised) described = await describe(session);
      if (!described) throw noNamespace(namespace);
      const before = await onceKnown(() => readSearchAttributes(connection, namespace));
      const conflict = before.conflicting.length > 0 && searchAttributeProblem(namespace, before);
      if (conflict) throw new CliError(conflict);
      const created = await addMissingSearchAttributes(connection, namespace, before).catch((err: unknown) => {
        throw refusedSetup(config.TEMPORAL_ADDRESS, namespace, before, err);
      });
      const problem = searchAttributeProblem(namespace, await readSearchAttributes(connection, namespace));
      if (problem) throw new CliError(problem);
      return {
        ...described,
        namespaceCreated: createNamespace,
        retentionRaised,
        searchAttributes: { created, alreadyRegistered: before.present },
      };
    });
    printJson(io, report);
    noteRetention(io, 'setup', report.namespace, report.retentionSeconds);
    return 0;
  },
});

export const temporalCommands: readonly CliCommand[] = [checkCommand, setupCommand, temporalInspectCommand];
