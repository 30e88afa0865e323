// The baseline of bench/delivery: a workflow with one no-op activity, run on the same server with the same worker
// settings as the delivery workflow. Workflow code: bundled on its own, imports nothing non-deterministic.
import { proxyActivities } from '@temporalio/workflow';

export const bareActivities = {
  /** Does nothing but answer. */
  async noop(input: string): Promise<string> {
    return await Promise.resolve(input);
  },
};

const { noop } = proxyActivities<typeof bareActivities>({ startToCloseTimeout: '10s' });

export async function bareWorkflow(input: string): Promise<string> {
  return await noop(input);
}
