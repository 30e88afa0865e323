import {
  isGrpcServiceError,
  ServiceError,
  WorkflowUpdateRPCTimeoutOrCancelledError,
  type Client,
} from '@temporalio/client';

/** gRPC's DEADLINE_EXCEEDED. */
const DEADLINE_EXCEEDED = 4;

/**
 * No worker answered a query or an update of a workflow in time: none is running, or all are too busy. The workflow
 * itself is unharmed; asking again later can succeed (the API answers 503 `workflow_unavailable`).
 */
export class WorkflowUnansweredError extends Error {
  override readonly name = 'WorkflowUnansweredError';
}

function isDeadline(err: unknown): boolean {
  if (err instanceof WorkflowUpdateRPCTimeoutOrCancelledError) return true;
  const grpc = err instanceof ServiceError ? err.cause : err;
  return isGrpcServiceError(grpc) && grpc.code === DEADLINE_EXCEEDED;
}

/**
 * Runs `fn`'s Temporal calls (a query or an update, which only a worker answers) within `ms`: without a deadline a
 * query to a workflow no worker polls for waits as long as the server lets it, and then fails as an internal error.
 */
export async function withinDeadline<T>(client: Client, ms: number, what: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await client.withDeadline(Date.now() + ms, fn);
  } catch (err) {
    if (isDeadline(err))
      throw new WorkflowUnansweredError(`no worker answered ${what} within ${ms} ms`, { cause: err });
    throw err;
  }
}
