import {
  WorkflowExecutionAlreadyStartedError,
  WorkflowNotFoundError,
  type Client,
  type QueryDefinition,
} from '@temporalio/client';
import type { Store } from '../store/index.js';
import {
  erasureProgressQuery,
  erasureWorkflowId,
  subjectErasureProgressQuery,
  subjectErasureWorkflowId,
  type ErasureInput,
  type ErasureProgress,
  type SubjectErasureInput,
  type SubjectErasureProgress,
} from '../../workflows/erasure-messages.js';
import { withinDeadline } from './workflow-answer.js';

interface Deps {
  readonly store: Store;
  readonly client: Client;
  readonly taskQueue: string;
  readonly answerWithinMs: number;
}

/** An erasure job as the admin API shows it: its workflow's state, step and counts so far. */
interface Job<P extends { step: string; counts: object }> {
  readonly state: 'running' | 'completed' | 'failed';
  readonly step: P['step'] | null;
  readonly counts: P['counts'] | null;
  readonly startedAt: Date;
  readonly closedAt: Date | null;
}
export type ErasureJob = Job<ErasureProgress> & { readonly integratorId: string };
export type SubjectErasureJob = Job<SubjectErasureProgress> & {
  readonly integratorId: string;
  readonly subjectId: string;
};

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
  const read = () => readErasure(deps, integratorId);
  const input: ErasureInput = { integratorId, graceMs };
  return await startOnce(deps, read, 'erasureWorkflow', erasureWorkflowId(integratorId), input, false);
}

/** The integrator's erasure, or null when none was started. A running one's step is asked of its worker. */
export async function readErasure(deps: Deps, integratorId: string): Promise<ErasureJob | null> {
  const job = await readJob(deps, erasureWorkflowId(integratorId), erasureProgressQuery);
  return job && { integratorId, ...job };
}

/**
 * Starts the erasure of the events of `integratorId` that name `subjectId` (workflows/subject-erasure.ts), or answers
 * the one running; null when there is no integrator. It examines the events stored before the request: once one has
 * completed, a new request starts a new one (events may have named the subject since).
 */
export async function startSubjectErasure(
  deps: Deps,
  integratorId: string,
  subjectId: string,
  graceMs: number,
): Promise<{ job: SubjectErasureJob; created: boolean } | null> {
  const read = () => readSubjectErasure(deps, integratorId, subjectId);
  const input: SubjectErasureInput = { integratorId, subjectId, before: new Date().toISOString(), graceMs };
  const id = subjectErasureWorkflowId(integratorId, subjectId);
  return await startOnce(deps, read, 'subjectErasureWorkflow', id, input, true);
}

/** A subject's erasure, or null when none was started. */
export async function readSubjectErasure(
  deps: Deps,
  integratorId: string,
  subjectId: string,
): Promise<SubjectErasureJob | null> {
  const job = await readJob(deps, subjectErasureWorkflowId(integratorId, subjectId), subjectErasureProgressQuery);
  return job && { integratorId, subjectId, ...job };
}

/**
 * Starts the job's workflow unless one runs, or one completed and `again` is false; a failed or terminated one may
 * always start again.
 */
async function startOnce<J extends { state: string }>(
  deps: Deps,
  read: () => Promise<J | null>,
  workflowType: string,
  workflowId: string,
  input: ErasureInput | SubjectErasureInput,
  again: boolean,
): Promise<{ job: J; created: boolean } | null> {
  const existing = await read();
  if (existing?.state === 'running' || (existing?.state === 'completed' && !again)) {
    return { job: existing, created: false };
  }
  if (!(await deps.store.integrators.exists(input.integratorId))) return null;
  const created = await deps.client.workflow
    .start(workflowType, {
      taskQueue: deps.taskQueue,
      workflowId,
      args: [input],
      workflowIdReusePolicy: again ? 'ALLOW_DUPLICATE' : 'ALLOW_DUPLICATE_FAILED_ONLY',
    })
    .then(
      () => true,
      (err: unknown) => {
        if (err instanceof WorkflowExecutionAlreadyStartedError) return false;
        throw err;
      },
    );
  const job = await read();
  if (!job) throw new Error(`${workflowId} was started but cannot be read`);
  return { job, created };
}

async function readJob<P extends { step: string; counts: object }>(
  deps: Deps,
  workflowId: string,
  query: QueryDefinition<P>,
): Promise<Job<P> | null> {
  const handle = deps.client.workflow.getHandle(workflowId);
  const d = await handle.describe().catch((err: unknown) => {
    if (err instanceof WorkflowNotFoundError) return null;
    throw err;
  });
  if (!d) return null;
  const base = { startedAt: d.startTime, closedAt: d.closeTime ?? null };
  if (d.status.name === 'COMPLETED') {
    const done = (await handle.result()) as P;
    return { ...base, state: 'completed', step: done.step, counts: done.counts };
  }
  if (d.status.name !== 'RUNNING') return { ...base, state: 'failed', step: null, counts: null };
  const now = await withinDeadline(deps.client, deps.answerWithinMs, workflowId, () => handle.query(query)).catch(
    () => null,
  );
  return { ...base, state: 'running', step: now?.step ?? null, counts: now?.counts ?? null };
}
