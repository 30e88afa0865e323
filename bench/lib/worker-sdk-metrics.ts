// The Temporal SDK's own figures about a bench's worker, read from its /metrics (Herald's registry followed by the
// SDK's Prometheus exporter, src/worker-runtime.ts): how often a workflow task found its run in the worker's cache,
// how many runs were evicted to make room, and where workflow and activity tasks spent their time.
import { round } from './stats.js';

/**
 * The sum over the label sets of `name`'s samples (a counter, or a histogram's `_sum` / `_count`) whose labels contain
 * `having` (e.g. `task_queue="q"`; any when empty).
 */
function total(text: string, name: string, having = ''): number {
  let sum = 0;
  for (const m of text.matchAll(new RegExp(`^(?:temporal_)?${name}(?:\\{([^}]*)\\})? (\\S+)$`, 'gm')))
    if ((m[1] ?? '').includes(having)) sum += Number(m[2]);
  return sum;
}

/** A histogram's mean (ms) and sample count; the SDK exports its latencies in milliseconds. */
function histogram(text: string, name: string, having = ''): { count: number; meanMs: number } {
  const count = total(text, `${name}_count`, having);
  return { count, meanMs: count === 0 ? Number.NaN : round(total(text, `${name}_sum`, having) / count) };
}

/**
 * Scrapes `url` (the worker's /metrics) once; null when it cannot be read. `taskQueue`: the worker's (shared) task
 * queue, whose workflow tasks' wait is given apart from the sticky queue's (first tasks and evicted runs come from it).
 */
export async function workerSdkMetrics(url: string, taskQueue: string) {
  let text: string;
  try {
    text = await (await fetch(url)).text();
  } catch {
    return null;
  }
  const hits = total(text, 'sticky_cache_hit');
  const misses = total(text, 'sticky_cache_miss');
  return {
    stickyCacheHits: hits,
    stickyCacheMisses: misses,
    stickyCacheForcedEvictions: total(text, 'sticky_cache_total_forced_eviction'),
    workflowTasks: total(text, 'workflow_task_execution_latency_count'),
    workflowTaskFailures: total(text, 'workflow_task_execution_failed'),
    workflowTaskExecution: histogram(text, 'workflow_task_execution_latency'),
    workflowTaskReplay: histogram(text, 'workflow_task_replay_latency'),
    workflowTaskScheduleToStart: histogram(text, 'workflow_task_schedule_to_start_latency'),
    sharedQueueScheduleToStart: histogram(text, 'workflow_task_schedule_to_start_latency', `task_queue="${taskQueue}"`),
    activityExecution: histogram(text, 'activity_execution_latency'),
    activityScheduleToStart: histogram(text, 'activity_schedule_to_start_latency'),
  };
}
