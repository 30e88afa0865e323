import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import { WorkflowIdReusePolicy } from '@temporalio/common';
import type { DeliveryDoc } from '../store/documents.js';
import type { Store } from '../store/index.js';
import { withTimeout } from '../util/with-timeout.js';
import { deliveryWorkflow } from '../../workflows/delivery.js';
import { retryNowSignal } from '../../workflows/messages.js';
import { deliveryStartOptions } from './start-delivery.js';

export type RetryVerdict = { ok: true; delivery: DeliveryDoc } | { ok: false; reason: 'subscription_deleted' };
type Deps = { store: Store; client: Client; taskQueue: string };
type StartOptions = ReturnType<typeof deliveryStartOptions>;

/** How long a re-run waits for the delivery's previous run to close (it is only finishing its last step). */
const CLOSING_WAIT_MS = 10_000;

/**
 * Attempt now. A pending delivery's running workflow is signalled (its wait is cut short). A terminal one is made
 * pending again and gets a new run of its workflow, same id, that attempts once at once and ends (no new schedule);
 * so does a pending delivery whose workflow has closed or never started, except that it keeps the schedule.
 * New runs number their attempts after the last recorded one, never reusing a number.
 */
export async function retryDelivery(deps: Deps, delivery: DeliveryDoc, now = new Date()): Promise<RetryVerdict> {
  const { store, client, taskQueue } = deps;
  const subscription = await store.subscriptions.findById(delivery.subscriptionId);
  if (!subscription || subscription.deletedAt) return { ok: false, reason: 'subscription_deleted' };
  const reopened = delivery.status === 'pending' ? null : await store.deliveries.reopen(delivery._id, now);
  const current = reopened ?? (await store.deliveries.findById(delivery._id)) ?? delivery;
  const options = deliveryStartOptions(current, taskQueue, {
    deliveryId: current._id,
    firstAttemptNumber: (await store.deliveries.lastAttemptNumber(current._id)) + 1,
    actor: 'manual',
    followSchedule: reopened === null,
  });
  try {
    if (reopened) await startRerun(client, options);
    else await signalOrStart(client, options);
  } catch (err) {
    // Nothing will attempt it: put back the status it had, so that the record does not claim a pending attempt.
    if (reopened) await store.deliveries.restore(delivery);
    throw err;
  }
  return { ok: true, delivery: (await store.deliveries.findById(current._id)) ?? current };
}

/** Signals the running workflow; starts one only when this delivery's workflow never ran (REJECT_DUPLICATE). */
async function signalOrStart(client: Client, options: StartOptions): Promise<void> {
  try {
    await client.workflow.signalWithStart(deliveryWorkflow, {
      ...options,
      workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
      signal: retryNowSignal,
      signalArgs: [],
    });
  } catch (err) {
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
    await startRerun(client, options); // its workflow has closed while the record says pending
  }
}

/**
 * A new run. The previous one may still be closing (it has written the terminal status and is completing): a
 * signal would reach that run and be lost, so wait, bounded, for it to close and start again.
 */
async function startRerun(client: Client, options: StartOptions): Promise<void> {
  for (let tries = 0; ; tries++) {
    try {
      await client.workflow.start(deliveryWorkflow, { ...options, workflowIdConflictPolicy: 'FAIL' });
      return;
    } catch (err) {
      if (!(err instanceof WorkflowExecutionAlreadyStartedError) || tries >= 2) throw err;
      const closing = client.workflow.getHandle(options.workflowId).result();
      await withTimeout(
        closing.catch(() => undefined),
        CLOSING_WAIT_MS,
        undefined,
      );
    }
  }
}
