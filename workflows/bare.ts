import { proxyActivities } from '@temporalio/workflow';
import type { createActivities } from '../activities/index.js';

const { noop } = proxyActivities<ReturnType<typeof createActivities>>({ startToCloseTimeout: '10s' });

/** A workflow with one no-op activity: the baseline the delivery benchmark compares against, and a smoke test. */
export async function bareWorkflow(input: string): Promise<string> {
  return await noop(input);
}
