import { fileURLToPath } from 'node:url';
import { existsSync } from 'node:fs';
import type { NativeConnection } from '@temporalio/worker';
import { Worker, type WorkerOptions } from '@temporalio/worker';
import type { createActivities } from '../activities/index.js';
import type { Config } from './config.js';
import { deliveryLogInterceptors } from './telemetry/activity-log-fields.js';
import { tracingWorkerOptions } from './telemetry/temporal-tracing.js';

/** The workflows entry point, as TypeScript in development and as compiled JavaScript in dist/. */
export function workflowsPath(): string {
  const ts = fileURLToPath(new URL('../workflows/index.ts', import.meta.url));
  return existsSync(ts) ? ts : fileURLToPath(new URL('../workflows/index.js', import.meta.url));
}

/** Worker tuning measured on a 2-core box (shared/performance-notes.md). */
export const workerTuning = {
  maxConcurrentWorkflowTaskExecutions: 200,
  maxConcurrentActivityTaskExecutions: 1000,
  maxConcurrentLocalActivityExecutions: 1000,
  workflowTaskPollerBehavior: { type: 'simple-maximum', maximum: 20 },
  activityTaskPollerBehavior: { type: 'simple-maximum', maximum: 20 },
  // Sized on purpose: RSS grows with the cache, not with the deliveries waiting (≈ 1.3 GB with the SDK's default
  // for 10,000 sleeping workflows, ≈ 0.41 GB with 100). 400 holds every workflow woken in the last ~10 s at the
  // measured ~40 deliveries/s; an evicted one replays its short history (≤ 30 events) when its timer fires.
  // `npm run bench -- soak` prints the worker's RSS with 20,000 deliveries waiting (goal ≤ 600 MB).
  maxCachedWorkflows: 400,
  reuseV8Context: true,
} as const satisfies Partial<WorkerOptions>;

export interface HeraldWorkerOptions {
  config: Config;
  connection: NativeConnection;
  activities: ReturnType<typeof createActivities>;
  /** A pre-built bundle (bundleWorkflowCode) to skip bundling at start-up, e.g. shared by a test run. */
  workflowBundlePath?: string;
  taskQueue?: string;
}

export async function createHeraldWorker(options: HeraldWorkerOptions): Promise<Worker> {
  const tracing = tracingWorkerOptions();
  // A pre-built bundle lacks the tracing workflow interceptors: a tracing worker bundles its own.
  const bundlePath = tracing ? undefined : (options.workflowBundlePath ?? process.env.HERALD_WORKFLOW_BUNDLE);
  return Worker.create({
    connection: options.connection,
    namespace: options.config.TEMPORAL_NAMESPACE,
    taskQueue: options.taskQueue ?? options.config.TEMPORAL_TASK_QUEUE,
    ...(bundlePath ? { workflowBundle: { codePath: bundlePath } } : { workflowsPath: workflowsPath() }),
    activities: options.activities,
    ...workerTuning,
    ...tracing,
    interceptors: {
      ...tracing?.interceptors,
      activity: [deliveryLogInterceptors, ...(tracing?.interceptors?.activity ?? [])],
    },
  });
}
