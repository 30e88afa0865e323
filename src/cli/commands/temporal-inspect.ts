// `herald temporal inspect`: a delivery's workflow as Temporal has it now (docs/cli.md, "Operator: herald temporal").
import { Client, WorkflowNotFoundError } from '@temporalio/client';
import { deliveryStateQuery, deliveryWorkflowId } from '../../../workflows/messages.js';
import { defineCommand } from '../program.js';
import { CliError, printJson } from '../support.js';
import { ENV_HELP, timeoutMs, timeoutOption, withConnection } from './temporal-connect.js';

export const temporalInspectCommand = defineCommand({
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
});
