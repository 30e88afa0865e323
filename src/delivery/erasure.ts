import { WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError, type Client } from '@temporalio/client';
import type { Store } from '../store/index.js';
import {
  erasureProgressQuery,
  erasureWorkflowId,
  type ErasureCounts,
  type ErasureInput,
  type ErasureProgress,
} from '../../workflows/erasure-messages.js';
import { withinDeadline } from './workflow-answer.js';

interface Deps {
  readonly store: Store;
  readonly client: Client;
  readonly taskQueue: string;
  readonly answerWithinMs: number;
}

/** An erasure as the admin API shows it: its workflow's state, step and counts so far. */
export interface ErasureJob {
  readonly integratorId: string;
  readonly state: 'running' | 'completed' | 'failed';
  readonly step: ErasureProgress['step'] | null;
  readonly counts: ErasureCounts | null;
  readonly startedAt: Date;
  readonly closedAt: Date | null;
}

/**
 * Starts the integrator's erasure (workflows/erasure.ts), or answers the one it has (running, or ended: a repeated
 * request changes nothing); null when there is neither the integrator nor an erasure of it. The wait between
 * cancelling and erasing (HERALD_ERASURE_GRACE_SECONDS) outlasts ingestion's memory of the integrator (KNOWN_FOR_MS,
 * src/store/integrators-repo.ts) and attempts in flight.
 */
export async function startErasure(
  deps: Deps,
  integratorId: string,
  graceMs: number,
): Promise<{ job: ErasureJob; created: boolean } | null> {
  const existing = await readErasure(deps, integratorId);
  if (existing && existing.state !== 'failed') return { job: existing, created: false };
  if (!(await deps.store.integrators.exists(integratorId))) return null;
  const input: ErasureInput = { integratorId, graceMs };
  const created = await deps.client.workflow
    .start('erasureWorkflow', {
      taskQueue: deps.taskQueue,
      workflowId: erasureWorkflowId(integratorId),
      args: [input],
      // A failed or terminated erasure may be started again; one that ran or runs is answered.
      workflowIdReusePolicy: 'ALLOW_DUPLICATE_FAILED_ONLY',
    })
    .then(
      () => true,
      (err: unknown) => {
        if (err instanceof WorkflowExecutionAlreadyStartedError) return false;
        throw err;
      },
    );
  const job = await readErasure(deps, integratorId);
  if (!job) throw new Error(`the erasure of ${integratorId} was started but cannot be read`);
  return { job, created };
}

/** The integrator's erasure, or null when none was started. A running one's step is asked of its worker. */
export async function readErasure(deps: Deps, integratorId: string): Promise<ErasureJob | null> {
  const handle = deps.client.workflow.getHandle(erasureWorkflowId(integratorId));
  const d = await handle.describe().catch((err: unknown) => {
    if (err instanceof WorkflowNotFoundError) return null;
    throw err;
  });
  if (!d) return null;
  const base = { integratorId, startedAt: d.startTime, closedAt: d.closeTime ?? null };
  if (d.status.name === 'COMPLETED') {
    const done = (await handle.result()) as ErasureProgress;
    return { ...base, state: 'completed', step: done.step, counts: done.counts };
  }
  if (d.status.name !== 'RUNNING') return { ...base, state: 'failed', step: null, counts: null };
  const now = await withinDeadline(deps.client, deps.answerWithinMs, `the erasure of ${integratorId}`, () =>
    handle.query(erasureProgressQuery),
  ).catch(() => null);
  return { ...base, state: 'running', step: now?.step ?? null, counts: now?.counts ?? null };
}
