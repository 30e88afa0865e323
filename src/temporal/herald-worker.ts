import type { NativeConnection } from '@temporalio/worker';
import { Worker, type WorkerOptions } from '@temporalio/worker';
import type { createActivities } from '../../activities/index.js';
import type { Config } from '../config.js';
import { ATTEMPT_HEARTBEAT_THROTTLE_MS } from '../domain/attempt-bounds.js';
import { deliveryLogInterceptors } from '../telemetry/activity-log-fields.js';
import { tracingWorkerOptions } from '../telemetry/temporal-tracing.js';
import { workflowSource } from './workflow-bundle.js';

/**
 * Worker tuning: workflow tasks as measured on a 2-core box (the platform's performance notes); attempts bounded to what
 * the database and the network can serve, and a SIGTERM that lets them finish (docs/scale-and-size.md, "Sizing the
 * worker").
 */
export function workerTuning(
  config: Pick<
    Config,
    | 'HERALD_WORKER_MAX_ACTIVITIES'
    | 'HERALD_WORKER_SHUTDOWN_GRACE_SECONDS'
    | 'HERALD_WORKER_CACHED_WORKFLOWS'
    | 'HERALD_WORKER_WORKFLOW_THREADS'
  >,
): Partial<WorkerOptions> {
  const graceMs = config.HERALD_WORKER_SHUTDOWN_GRACE_SECONDS * 1000;
  return {
    maxConcurrentWorkflowTaskExecutions: 200,
    maxConcurrentActivityTaskExecutions: config.HERALD_WORKER_MAX_ACTIVITIES,
    maxConcurrentLocalActivityExecutions: config.HERALD_WORKER_MAX_ACTIVITIES,
    workflowTaskPollerBehavior: { type: 'simple-maximum', maximum: 20 },
    // Half the workflow-task polls on the shared queue (the SDK's default is a fifth: 4 of 20): every delivery's first
    // task comes from it. Measured on an outage's load (docs/scale-and-size.md, "The poll split and the workflow cache"):
    // with 4 polls the first tasks queued there p50 25 s, with 10 p50 60 ms; 10 sticky polls still serve wake-ups.
    nonStickyToStickyPollRatio: 0.5,
    // More pollers than free slots only hold tasks another worker could run.
    activityTaskPollerBehavior: { type: 'simple-maximum', maximum: Math.min(20, config.HERALD_WORKER_MAX_ACTIVITIES) },
    // Sized on purpose (docs/scale-and-size.md, "The poll split and the workflow cache"): the SDK's default would be
    // ≈ 2,300 (from the 4 GB heap limit). A cached run costs ≈ 0.25 MB; an evicted one replays its short history
    // (≤ 30 events) when it wakes, which an outage's many waiting retries pay for in latency.
    maxCachedWorkflows: config.HERALD_WORKER_CACHED_WORKFLOWS,
    reuseV8Context: true,
    // The SDK's default with a reused context is one thread: an outage's retries wake in bursts, and the replays of the
    // evicted ones queued there ahead of every first task (docs/scale-and-size.md, "The poll split and the workflow cache").
    workflowThreadPoolSize: config.HERALD_WORKER_WORKFLOW_THREADS,
    // Heartbeats reach Temporal well within the activity's heartbeat timeout (src/domain/attempt-bounds.ts).
    maxHeartbeatThrottleInterval: ATTEMPT_HEARTBEAT_THROTTLE_MS,
    defaultHeartbeatThrottleInterval: ATTEMPT_HEARTBEAT_THROTTLE_MS,
    // SIGTERM: stop polling, let in-flight attempts finish for the grace, then give them up (Temporal retries them).
    shutdownGraceTime: graceMs,
    shutdownForceTime: graceMs + 5_000,
  };
}

export interface HeraldWorkerOptions {
  config: Config;
  connection: NativeConnection;
  activities: ReturnType<typeof createActivities>;
  /** A pre-built bundle (bundleWorkflowCode) to skip bundling at start-up, e.g. shared by a test run. */
  workflowBundlePath?: string;
  taskQueue?: string;
  /** Options over workerTuning's, e.g. the API's small worker for eager starts (src/temporal/api-worker.ts). */
  overrides?: Partial<WorkerOptions>;
}

export async function createHeraldWorker(options: HeraldWorkerOptions): Promise<Worker> {
  const tracing = tracingWorkerOptions();
  return Worker.create({
    connection: options.connection,
    namespace: options.config.TEMPORAL_NAMESPACE,
    taskQueue: options.taskQueue ?? options.config.TEMPORAL_TASK_QUEUE,
    ...workflowSource({ tracing: tracing !== undefined, bundlePath: options.workflowBundlePath }),
    activities: options.activities,
    ...workerTuning(options.config),
    ...options.overrides,
    ...tracing,
    interceptors: {
      ...tracing?.interceptors,
      activity: [deliveryLogInterceptors, ...(tracing?.interceptors?.activity ?? [])],
    },
  });
}
