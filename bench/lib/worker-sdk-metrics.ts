// The Temporal SDK's own figures about a bench's worker, read from its /metrics (Herald's registry followed by the
// SDK's Prometheus exporter, src/process/worker-runtime.ts): how often a workflow task found its run in the worker's
// cache, how many runs were evicted to make room, and where workflow and activity tasks spent their time.
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

/** The mean (ms) of the SDK's latency of one RPC `operation` to Temporal, and how many it made. */
const rpc = (text: string, operation: string) =>
  histogram(text, `(?:long_)?request_latency`, `operation="${operation}"`);

/**
 * Scrapes `url` (the worker's /metrics) once; null when it cannot be read. The SDK labels the sticky queue's
 * workflow tasks with the shared queue's name, so the schedule-to-start wait covers both; `pollers` is the number of
 * polls open at the scrape, per queue (the shared queue's `workflow_task` pollers take every first task).
 */
export async function workerSdkMetrics(url: string) {
  let text: string;
  try {
    text = await (await fetch(url)).text();
  } catch {
    return null;
  }
  const pollers = (type: string) => total(text, 'num_pollers', `poller_type="${type}"`);
  return {
    stickyCacheHits: total(text, 'sticky_cache_hit'),
    stickyCacheMisses: total(text, 'sticky_cache_miss'),
    stickyCacheForcedEvictions: total(text, 'sticky_cache_total_forced_eviction'),
    workflowTaskFailures: total(text, 'workflow_task_execution_failed'),
    workflowTaskExecution: histogram(text, 'workflow_task_execution_latency'),
    workflowTaskScheduleToStart: histogram(text, 'workflow_task_schedule_to_start_latency'),
    activityExecution: histogram(text, 'activity_execution_latency'),
    activityScheduleToStart: histogram(text, 'activity_schedule_to_start_latency'),
    rpc: {
      pollWorkflowTask: rpc(text, 'PollWorkflowTaskQueue'),
      respondWorkflowTaskCompleted: rpc(text, 'RespondWorkflowTaskCompleted'),
      respondActivityTaskCompleted: rpc(text, 'RespondActivityTaskCompleted'),
    },
    pollers: {
      workflowTask: pollers('workflow_task'),
      stickyWorkflowTask: pollers('sticky_workflow_task'),
      activityTask: pollers('activity_task'),
    },
  };
}
