import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import { probeWorkflowId } from '../../workflows/messages.js';
import { probeWorkflow } from '../../workflows/probe.js';
import { subscriptionPriority } from '../../workflows/start-options.js';

/** The probe's life: it gives up after this long without a 2xx (docs/subscriptions.md, "Endpoint probe"). */
export const PROBE_LIFE_SECONDS = 7 * 86_400;

export type StartProbe = (subscriptionId: string) => Promise<void>;

/**
 * Starts the endpoint probe of a subscription Herald paused (workflows/probe.ts). Idempotent: a probe already
 * running for the subscription goes on, a second pause starts nothing.
 */
export function createStartProbe(deps: { client: Client; taskQueue: string; intervalSeconds: number }): StartProbe {
  const { client, taskQueue, intervalSeconds } = deps;
  const probesLeft = Math.max(1, Math.ceil(PROBE_LIFE_SECONDS / intervalSeconds));
  return async (subscriptionId) => {
    try {
      await client.workflow.start(probeWorkflow, {
        taskQueue,
        workflowId: probeWorkflowId(subscriptionId),
        args: [{ subscriptionId, intervalSeconds, probesLeft }],
        priority: subscriptionPriority(subscriptionId),
      });
    } catch (err) {
      if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
    }
  };
}
