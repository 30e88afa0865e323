import { WorkflowUpdateRPCTimeoutOrCancelledError, type Client } from '@temporalio/client';
import { grpcCode, grpcStatus } from '../util/grpc-status.js';

/** A timer may fire a little before its time: a CANCELLED this close to the deadline is the deadline's. */
const DEADLINE_SLACK_MS = 50;

/**
 * No worker answered a query or an update of a workflow in time: none is running, or all are too busy. The workflow
 * itself is unharmed; asking again later can succeed (the API answers 503 `workflow_unavailable`).
 */
export class WorkflowUnansweredError extends Error {
  override readonly name = 'WorkflowUnansweredError';
}

/**
 * Whether `err` is the deadline at `deadline`: DEADLINE_EXCEEDED, or CANCELLED once it has passed (the client's
 * retry of a call the server answered UNAVAILABLE or RESOURCE_EXHAUSTED is cancelled by the deadline while it waits).
 */
function isDeadline(err: unknown, deadline: number): boolean {
  if (err instanceof WorkflowUpdateRPCTimeoutOrCancelledError) return true;
  const code = grpcCode(err);
  if (code === grpcStatus.DEADLINE_EXCEEDED) return true;
  return code === grpcStatus.CANCELLED && Date.now() >= deadline - DEADLINE_SLACK_MS;
}

/**
 * Runs `fn`'s Temporal calls (a query or an update, which only a worker answers) within `ms`: without a deadline a
 * query to a workflow no worker polls for waits as long as the server lets it, and then fails as an internal error.
 */
export async function withinDeadline<T>(client: Client, ms: number, what: string, fn: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + ms;
  try {
    return await client.withDeadline(deadline, fn);
  } catch (err) {
    if (isDeadline(err, deadline))
      throw new WorkflowUnansweredError(`no worker answered ${what} within ${ms} ms`, { cause: err });
    throw err;
  }
}
