// `herald retention status|run|pause|resume`: the retention purge's Temporal Schedule (docs/retention.md), with the
// TEMPORAL_* settings of the API and the worker.
import { Client, ScheduleNotFoundError, type ScheduleDescription, type ScheduleHandle } from '@temporalio/client';
import { retentionScheduleId } from '../../temporal/retention-schedule.js';
import { defineCommand } from '../program.js';
import { CliError, printJson } from '../support.js';
import type { CliCommand } from '../types.js';
import { ENV_HELP, timeoutMs, timeoutOption, withConnection, type TemporalSession } from './temporal-connect.js';

const handleOf = ({ config, connection }: TemporalSession): { client: Client; schedule: ScheduleHandle } => {
  const client = new Client({ connection, namespace: config.TEMPORAL_NAMESPACE });
  return { client, schedule: client.schedule.getHandle(retentionScheduleId(config.TEMPORAL_TASK_QUEUE)) };
};

async function describe(schedule: ScheduleHandle): Promise<ScheduleDescription> {
  return await schedule.describe().catch((err: unknown) => {
    if (err instanceof ScheduleNotFoundError)
      throw new CliError(
        `no schedule ${schedule.scheduleId}: a worker of this TEMPORAL_TASK_QUEUE creates it when it starts ` +
          '(docs/retention.md)',
      );
    throw err;
  });
}

const runIds = (d: ScheduleDescription) => ({
  running: d.info.runningActions.map((a) => a.workflow.workflowId),
  recent: d.info.recentActions.map((a) => ({
    scheduledAt: a.scheduledAt.toISOString(),
    workflowId: a.action.workflow.workflowId,
  })),
});

const statusCommand = defineCommand({
  name: 'retention status',
  summary: "Operator: the retention purge's schedule: paused or not, its next runs, its last run and what it purged",
  options: timeoutOption,
  notes: ENV_HELP,
  async action({ values }, io) {
    const report = await withConnection(io, timeoutMs(values.timeout), async (session) => {
      const { client, schedule } = handleOf(session);
      const d = await describe(schedule);
      const { running, recent } = runIds(d);
      const last = recent.at(-1);
      const lastHandle = last && client.workflow.getHandle(last.workflowId);
      const lastRun = lastHandle && (await lastHandle.describe());
      const result = lastRun?.status.name === 'COMPLETED' ? ((await lastHandle?.result()) ?? null) : null;
      return {
        scheduleId: schedule.scheduleId,
        paused: d.state.paused,
        note: d.state.note ?? null,
        everySeconds: (d.spec.intervals?.[0]?.every ?? 0) / 1000,
        nextRuns: d.info.nextActionTimes.slice(0, 3).map((t) => t.toISOString()),
        running,
        lastRun: last ? { ...last, status: lastRun?.status.name ?? null, result } : null,
      };
    });
    printJson(io, report);
    return 0;
  },
});

const runCommand = defineCommand({
  name: 'retention run',
  summary: 'Operator: start a purge now (a run already working is waited for instead); --wait prints what it purged',
  options: { ...timeoutOption, wait: { type: 'boolean', help: 'wait for the run to end and print its totals' } },
  notes: ENV_HELP,
  async action({ values }, io) {
    const wait = values.wait === true;
    // --wait: the run may take minutes; the deadline is the timeout's (default 10 s, at most 300).
    const report = await withConnection(io, timeoutMs(values.timeout), async (session) => {
      const { client, schedule } = handleOf(session);
      const before = runIds(await describe(schedule));
      await schedule.trigger('SKIP');
      if (!wait) return { triggered: true };
      // The run the trigger started (a new entry among the recent or running ones), or the one already running.
      const known = new Set([...before.running, ...before.recent.map((r) => r.workflowId)]);
      for (;;) {
        const now = runIds(await describe(schedule));
        const id =
          [...now.running, ...now.recent.map((r) => r.workflowId)].find((w) => !known.has(w)) ?? before.running[0];
        if (id) return { workflowId: id, result: await client.workflow.getHandle(id).result() };
        await new Promise((r) => setTimeout(r, 250));
      }
    });
    printJson(io, report);
    return 0;
  },
});

const control = (name: 'pause' | 'resume', summary: string): CliCommand =>
  defineCommand({
    name: `retention ${name}`,
    summary,
    options: { ...timeoutOption, note: { type: 'string', value: 'text', help: 'why (shown in the Temporal UI)' } },
    notes: ENV_HELP,
    async action({ values }, io) {
      const note = typeof values.note === 'string' ? values.note : `herald retention ${name}`;
      const report = await withConnection(io, timeoutMs(values.timeout), async (session) => {
        const { schedule } = handleOf(session);
        await describe(schedule);
        if (name === 'pause') await schedule.pause(note);
        else await schedule.unpause(note);
        return { scheduleId: schedule.scheduleId, paused: (await describe(schedule)).state.paused };
      });
      printJson(io, report);
      return 0;
    },
  });

export const retentionCommands: readonly CliCommand[] = [
  statusCommand,
  runCommand,
  control('pause', 'Operator: pause the retention purge (nothing is deleted until it is resumed or run by hand)'),
  control('resume', 'Operator: resume the retention purge on its schedule'),
];
