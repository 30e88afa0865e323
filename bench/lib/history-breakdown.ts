// Where a delivery's first attempt and its retries spend their time, read from the Temporal histories of a sample of
// delivery workflows (server timestamps): a retry's lateness splits into the timer firing late, the workflow task
// that follows it (queued, then run — a replay when the run was evicted from the worker's cache), the activity
// waiting for a slot, and the activity itself (its database reads before the POST).
import type { Client } from '@temporalio/client';
import type { temporal } from '@temporalio/proto';
import { durationSeconds, timestampMs } from '../../test/helpers/temporal.js';
import { quantile, round } from './stats.js';

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

const at = (e: HistoryEvent | undefined): number => (e ? timestampMs(e.eventTime) : Number.NaN);

/** One scheduled activity of a history: its schedule, start (with Temporal's try number) and end times. */
function activityTimes(events: readonly HistoryEvent[], scheduled: HistoryEvent) {
  const id = Number(scheduled.eventId);
  const started = events.find((e) => Number(e.activityTaskStartedEventAttributes?.scheduledEventId) === id);
  const ended = events.find(
    (e) =>
      Number(e.activityTaskCompletedEventAttributes?.scheduledEventId) === id ||
      Number(e.activityTaskFailedEventAttributes?.scheduledEventId) === id,
  );
  return {
    scheduled: at(scheduled),
    started: at(started),
    ended: at(ended),
    tries: Number(started?.activityTaskStartedEventAttributes?.attempt ?? Number.NaN),
  };
}

interface Rows {
  firstStartToScheduled: number[];
  firstTaskWait: number[];
  firstTaskRun: number[];
  firstScheduledToStarted: number[];
  firstTries: number[];
  firstRun: number[];
  answerToTimer: number[];
  timerLate: number[];
  firedToTaskStarted: number[];
  taskRun: number[];
  retryScheduledToStarted: number[];
  retryRun: number[];
}

function addHistory(events: readonly HistoryEvent[], rows: Rows): void {
  const start = events.find((e) => e.workflowExecutionStartedEventAttributes);
  const scheduled = events.filter((e) => e.activityTaskScheduledEventAttributes);
  const first = scheduled[0] && activityTimes(events, scheduled[0]);
  const firstTask = (kind: keyof HistoryEvent) => events.find((e) => e[kind]);
  rows.firstTaskWait.push(at(firstTask('workflowTaskStartedEventAttributes')) - at(start));
  rows.firstTaskRun.push(
    at(firstTask('workflowTaskCompletedEventAttributes')) - at(firstTask('workflowTaskStartedEventAttributes')),
  );
  if (first) {
    rows.firstStartToScheduled.push(first.scheduled - at(start));
    rows.firstScheduledToStarted.push(first.started - first.scheduled);
    rows.firstTries.push(first.tries);
    rows.firstRun.push(first.ended - first.started);
  }
  for (const timer of events.filter((e) => e.timerStartedEventAttributes)) {
    const timerId = timer.timerStartedEventAttributes?.timerId;
    const fired = events.find((e) => e.timerFiredEventAttributes?.timerId === timerId);
    if (!fired) continue;
    const due = at(timer) + durationSeconds(timer.timerStartedEventAttributes?.startToFireTimeout) * 1000;
    const after = events.filter((e) => Number(e.eventId) > Number(fired.eventId));
    const taskStarted = after.find((e) => e.workflowTaskStartedEventAttributes);
    const taskDone = after.find((e) => e.workflowTaskCompletedEventAttributes);
    const next = after.find((e) => e.activityTaskScheduledEventAttributes);
    // From the previous attempt's completion to this timer's start (the activity's return, the workflow task).
    const completed = events
      .filter((e) => Number(e.eventId) < Number(timer.eventId) && e.activityTaskCompletedEventAttributes)
      .at(-1);
    rows.answerToTimer.push(at(timer) - at(completed));
    rows.timerLate.push(at(fired) - due);
    rows.firedToTaskStarted.push(at(taskStarted) - at(fired));
    rows.taskRun.push(at(taskDone) - at(taskStarted));
    if (next) {
      const a = activityTimes(events, next);
      rows.retryScheduledToStarted.push(a.started - a.scheduled);
      rows.retryRun.push(a.ended - a.started);
    }
  }
}

const p = (values: number[], q: number): number => round(quantile(values.filter(Number.isFinite), q));

/** p50 / p99 (ms; tries as counts) of each phase over the histories of `workflowIds` (fetched 8 at a time). */
export async function historyBreakdown(client: Client, workflowIds: readonly string[]) {
  const rows: Rows = {
    firstStartToScheduled: [],
    firstTaskWait: [],
    firstTaskRun: [],
    firstScheduledToStarted: [],
    firstTries: [],
    firstRun: [],
    answerToTimer: [],
    timerLate: [],
    firedToTaskStarted: [],
    taskRun: [],
    retryScheduledToStarted: [],
    retryRun: [],
  };
  const queue = [...workflowIds];
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      for (let id = queue.pop(); id !== undefined; id = queue.pop()) {
        const history = await client.workflow.getHandle(id).fetchHistory();
        addHistory(history.events ?? [], rows);
      }
    }),
  );
  return Object.fromEntries(
    Object.entries(rows).map(([name, values]) => [name, { p50: p(values, 0.5), p99: p(values, 0.99) }]),
  ) as Record<keyof Rows, { p50: number; p99: number }>;
}
