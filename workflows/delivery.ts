// The delivery workflow: attempt → wait (interruptible) → attempt … → succeeded | failed | cancelled.
// New runs are the state machine of delivery-run.ts (patch `attempt-steps`); runs recorded before it replay and
// finish on the released loop, delivery-legacy.ts (docs/upgrade-workflow.md, "Versioning the delivery workflow").
import { patched } from '@temporalio/workflow';
import { deliveryRun } from './delivery-run.js';
import { legacyDeliveryRun } from './delivery-legacy.js';
import { patches } from './patches.js';
import type { DeliveryWorkflowInput, DeliveryWorkflowResult } from './types.js';

export async function deliveryWorkflow(input: DeliveryWorkflowInput): Promise<DeliveryWorkflowResult> {
  // The first call of every run, as `patched(one-marker)` was before it: a history without this marker replays the
  // released loop's calls in their order.
  return patched(patches.attemptSteps) ? await deliveryRun(input) : await legacyDeliveryRun(input);
}
