import { setTimeout as sleep } from 'node:timers/promises';
import { WithStartWorkflowOperation, WorkflowUpdateFailedError, type Client } from '@temporalio/client';
import { ApplicationFailure, WorkflowNotFoundError } from '@temporalio/common';
import type { DeliveryDoc } from '../store/documents.js';
import type { Store } from '../store/index.js';
import { deliveryWorkflow } from '../../workflows/delivery.js';
import { retryUpdate, RUN_CLOSING } from '../../workflows/messages.js';
import { deliveryStartOptions } from './start-delivery.js';

export type RetryVerdict =
  | { ok: true; delivery: DeliveryDoc; attemptNumber: number }
  | { ok: false; reason: 'subscription_deleted' | 'delivery_busy' | 'out_of_order' };
type Deps = { store: Store; client: Client; taskQueue: string };

/** Waits before trying again a retry that reached a run as it ended: that run is only completing (ms). */
const CLOSING_BACKOFF_MS = [25, 50, 100, 200, 400, 800, 1600] as const;

/**
 * Attempt now, decided by the delivery's workflow, not by the API: one update-with-start (`retryUpdate`,
 * USE_EXISTING) reaches the running run — which answers with the attempt that serves the request, the one in
 * progress (not yet recorded when the request came) or the next, made at once — or starts a new run when none runs
 * (a terminal delivery: one attempt, no schedule; a pending one whose run is gone keeps its schedule). Concurrent requests reach the same run, so they
 * coalesce; the API writes no status, so none can be stale. A request that reaches a run that has just ended is
 * sent again, and so starts the next run; after ~3 s of that it answers `delivery_busy` (409), never dropped.
 */
export async function retryDelivery(deps: Deps, delivery: DeliveryDoc): Promise<RetryVerdict> {
  const { store, client, taskQueue } = deps;
  const subscription = await store.subscriptions.findById(delivery.subscriptionId);
  if (!subscription || subscription.deletedAt) return { ok: false, reason: 'subscription_deleted' };
  if (!(await inOrder(store, delivery))) return { ok: false, reason: 'out_of_order' };
  const options = deliveryStartOptions(delivery, taskQueue, {
    deliveryId: delivery._id,
    firstAttemptNumber: delivery.attemptCount + 1, // a hint: a run started by a retry reads its own
    actor: 'manual',
    followSchedule: delivery.status === 'pending',
  });
  for (const backoff of [...CLOSING_BACKOFF_MS, null]) {
    try {
      const { attemptNumber } = await client.workflow.executeUpdateWithStart(retryUpdate, {
        // The attempts the integrator could have seen: one of them in flight in its run cannot serve the request.
        args: [{ recordedAttempts: delivery.attemptCount }],
        startWorkflowOperation: new WithStartWorkflowOperation(deliveryWorkflow, {
          ...options,
          workflowIdConflictPolicy: 'USE_EXISTING',
        }),
      });
      const stored = (await store.deliveries.findById(delivery._id)) ?? delivery;
      return { ok: true, attemptNumber, delivery: pendingUntilMade(stored, attemptNumber) };
    } catch (err) {
      if (!reachedClosingRun(err)) throw err;
      if (backoff === null) return { ok: false, reason: 'delivery_busy' };
      await sleep(backoff);
    }
  }
  throw new Error('unreachable');
}

/**
 * Whether a retry keeps its ordered lane's order (docs/deliveries.md, "Ordered delivery"): a delivery made without a
 * place always may; one with a place only while it holds the turn (pending), or as the failed delivery that paused
 * its subscription (nothing after it has gone since).
 */
async function inOrder(store: Store, delivery: DeliveryDoc): Promise<boolean> {
  if (delivery.fifoSeq === undefined) return true;
  const lane = await store.fifoLanes.lane(delivery.subscriptionId);
  if (!lane || lane.blockedBy === delivery._id) return true;
  return delivery.status === 'pending' && lane.turn >= delivery.fifoSeq;
}

/** The run had ended: it rejected the update (validator), or closed before accepting it. */
function reachedClosingRun(err: unknown): boolean {
  if (err instanceof WorkflowNotFoundError) return true;
  return (
    err instanceof WorkflowUpdateFailedError &&
    err.cause instanceof ApplicationFailure &&
    err.cause.type === RUN_CLOSING
  );
}

/**
 * The delivery as the answer shows it: pending while the attempt that serves the request has not been recorded
 * (its run writes the record when it makes it), due now.
 */
function pendingUntilMade(stored: DeliveryDoc, attemptNumber: number, now = new Date()): DeliveryDoc {
  if (stored.attemptCount >= attemptNumber) return stored;
  return { ...stored, status: 'pending', terminalReason: null, nextAttemptAt: now };
}
