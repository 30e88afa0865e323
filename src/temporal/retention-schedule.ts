// The retention purge's Temporal Schedule (docs/retention.md): `herald-retention:<task queue>` starts a retentionWorkflow every
// HERALD_RETENTION_EVERY, skipping a start while the last run still works. Visible, pausable and triggerable in the
// Temporal UI and through `herald retention status|run|pause|resume`.
import { ScheduleAlreadyRunning, type Client, type ScheduleOptionsAction, type ScheduleSpec } from '@temporalio/client';
import type { Config } from '../config.js';

/**
 * The schedule of the deployment whose workers poll `taskQueue`: deployments sharing a namespace (each with its own
 * database) each purge their own.
 */
export const retentionScheduleId = (taskQueue: string): string => `herald-retention:${taskQueue}`;

const specOf = (config: Pick<Config, 'HERALD_RETENTION_EVERY'>): ScheduleSpec => ({
  intervals: [{ every: config.HERALD_RETENTION_EVERY }],
});

const actionOf = (config: Pick<Config, 'TEMPORAL_TASK_QUEUE'>): ScheduleOptionsAction => ({
  type: 'startWorkflow',
  workflowType: 'retentionWorkflow',
  // Each run's id: this, and the time Temporal appends.
  workflowId: `${retentionScheduleId(config.TEMPORAL_TASK_QUEUE)}:run`,
  taskQueue: config.TEMPORAL_TASK_QUEUE,
  args: [],
});

/**
 * Creates the schedule, or brings an existing one's interval and action to this configuration (its paused state
 * and note stay as an operator left them). Every worker calls it at start: the first creates, the others update.
 */
export async function ensureRetentionSchedule(
  client: Client,
  config: Pick<Config, 'HERALD_RETENTION_EVERY' | 'TEMPORAL_TASK_QUEUE'>,
): Promise<'created' | 'updated'> {
  const spec = specOf(config);
  const action = actionOf(config);
  try {
    await client.schedule.create({
      scheduleId: retentionScheduleId(config.TEMPORAL_TASK_QUEUE),
      spec,
      action,
      policies: { overlap: 'SKIP', catchupWindow: '1 minute' },
      state: { note: 'Herald: purge what ended before HERALD_RETENTION (docs/retention.md)' },
    });
    return 'created';
  } catch (err) {
    if (!(err instanceof ScheduleAlreadyRunning)) throw err;
    await client.schedule
      .getHandle(retentionScheduleId(config.TEMPORAL_TASK_QUEUE))
      .update((prev) => ({ ...prev, spec, action }));
    return 'updated';
  }
}
