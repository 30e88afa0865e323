// Recovery campaigns from the API's side: start one (one per subscription and window), read its progress, and
// pause, resume or cancel it through the updates its workflow defines (workflows/recovery-messages.ts).
import {
  WorkflowExecutionAlreadyStartedError,
  WorkflowUpdateFailedError,
  type Client,
  type WorkflowHandle,
} from '@temporalio/client';
import { ApplicationFailure, WorkflowIdReusePolicy, WorkflowNotFoundError } from '@temporalio/common';
import type { DeliveryStatus } from '../domain/delivery-vocabulary.js';
import { uuidV5 } from '../store/derived-ids.js';
import type { SubscriptionDoc } from '../store/documents.js';
import type { Store } from '../store/index.js';
import { searchAttributes } from '../../workflows/search-attributes.js';
import { recoveryWorkflow } from '../../workflows/recovery.js';
import { subscriptionPriority } from '../../workflows/start-options.js';
import { withinDeadline } from './workflow-answer.js';
import {
  CAMPAIGN_CANCELLED,
  campaignProgressQuery,
  campaignWorkflowId,
  cancelCampaignUpdate,
  pauseCampaignUpdate,
  resumeCampaignUpdate,
  type CampaignInput,
  type CampaignProgress,
  type CampaignState,
} from '../../workflows/recovery-messages.js';

/**
 * `answerWithinMs`: how long a query or update of a campaign may wait for a worker (HERALD_WORKFLOW_ANSWER_MS); `store`:
 * where a running campaign's progress is read (src/store/campaign-progress-repo.ts).
 */
type Deps = {
  client: Client;
  taskQueue: string;
  answerWithinMs: number;
  store: Pick<Store, 'campaignProgress'>;
};

export interface CampaignRequest {
  since: Date;
  /** Absent: open-ended, fixed to the time of the first request (later requests answer that same campaign). */
  until?: Date | undefined;
  statuses: DeliveryStatus[];
  ratePerSecond: number;
}

/** The campaign of a subscription and window: the same window (same statuses) always names the same campaign. */
export function campaignIdOf(subscriptionId: string, request: Omit<CampaignRequest, 'ratePerSecond'>): string {
  const statuses = [...new Set(request.statuses)].sort().join(',');
  const until = request.until?.toISOString() ?? 'open';
  return uuidV5(`campaign:${subscriptionId}:${request.since.toISOString()}:${until}:${statuses}`);
}

/**
 * Starts the campaign, or finds the one this window already has (running or ended: an id is never reused).
 * `created` tells which.
 */
export async function startCampaign(
  deps: Deps,
  subscription: SubscriptionDoc,
  request: CampaignRequest,
  now = new Date(),
): Promise<{ created: boolean; campaign: CampaignProgress }> {
  const campaignId = campaignIdOf(subscription._id, request);
  const input: CampaignInput = {
    campaignId,
    integratorId: subscription.integratorId,
    window: {
      subscriptionId: subscription._id,
      since: request.since.toISOString(),
      until: (request.until ?? now).toISOString(),
      statuses: [...new Set(request.statuses)].sort(),
    },
    ratePerSecond: request.ratePerSecond,
  };
  try {
    await deps.client.workflow.start(recoveryWorkflow, {
      taskQueue: deps.taskQueue,
      workflowId: campaignWorkflowId(campaignId),
      args: [input],
      workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
      memo: { integratorId: subscription.integratorId },
      priority: subscriptionPriority(subscription._id),
      typedSearchAttributes: [
        { key: searchAttributes.subscriptionId, value: subscription._id },
        { key: searchAttributes.integratorId, value: subscription.integratorId },
      ],
    });
  } catch (err) {
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
    const existing = await readCampaign(deps, subscription.integratorId, campaignId);
    if (!existing) throw err; // another integrator's campaign cannot have this id: it derives from the subscription
    return { created: false, campaign: existing };
  }
  const counts = { state: 'running', total: 0, requested: 0, succeeded: 0, failed: 0, skipped: 0 } as const;
  const campaign: CampaignProgress = { ...input, ...counts };
  await deps.store.campaignProgress.recordState(campaign);
  return { created: true, campaign };
}

/**
 * The campaign's progress, or null when there is none of this integrator's with this id: an ended campaign's from its
 * result, a running one's as last recorded in the database (no worker asked). Only a campaign started before progress
 * was recorded answers through its worker: WorkflowUnansweredError when none does within the deadline.
 */
export async function readCampaign(
  deps: Deps,
  integratorId: string,
  campaignId: string,
): Promise<CampaignProgress | null> {
  const handle = deps.client.workflow.getHandle<typeof recoveryWorkflow>(campaignWorkflowId(campaignId));
  const description = await handle.describe().catch((err: unknown) => {
    if (err instanceof WorkflowNotFoundError) return null;
    throw err;
  });
  if (!description || description.memo?.integratorId !== integratorId) return null;
  // An ended campaign's result is its last progress; a running one's is recorded as it goes.
  if (description.status.name === 'COMPLETED') return await handle.result();
  const recorded = await deps.store.campaignProgress.find(campaignId);
  if (recorded) return recorded;
  return await withinDeadline(deps.client, deps.answerWithinMs, `campaign ${campaignId}'s progress query`, () =>
    handle.query(campaignProgressQuery),
  );
}

/**
 * The state of a running campaign, asked of its workflow by id (the re-delivery gate asks its own) within
 * `answerWithinMs`: WorkflowUnansweredError when no worker answers (the asking activity fails and is retried).
 */
export async function campaignStateOf(
  deps: Pick<Deps, 'client' | 'answerWithinMs'>,
  workflowId: string,
): Promise<CampaignState> {
  const handle = deps.client.workflow.getHandle(workflowId);
  const what = `the state query of ${workflowId}`;
  const progress = await withinDeadline(deps.client, deps.answerWithinMs, what, () =>
    handle.query(campaignProgressQuery),
  );
  return progress.state;
}

const controls = {
  pause: pauseCampaignUpdate,
  resume: resumeCampaignUpdate,
  cancel: cancelCampaignUpdate,
} as const;
export type CampaignControl = keyof typeof controls;

/**
 * Pauses, resumes or cancels a campaign; answers its progress after the change. Not ok (nothing changed) once it has
 * completed, or, for pause and resume, once it was cancelled; cancelling a cancelled campaign answers it as it is.
 * WorkflowUnansweredError when no worker takes the update within the deadline (it may still be applied later).
 */
export async function controlCampaign(
  deps: Deps,
  campaign: CampaignProgress,
  control: CampaignControl,
): Promise<{ ok: boolean; campaign: CampaignProgress }> {
  if (campaign.state === 'completed') return { ok: false, campaign };
  if (campaign.state === 'cancelled') return { ok: control === 'cancel', campaign };
  const handle: WorkflowHandle = deps.client.workflow.getHandle(campaignWorkflowId(campaign.campaignId));
  try {
    const what = `the ${control} of campaign ${campaign.campaignId}`;
    const changed = await withinDeadline(deps.client, deps.answerWithinMs, what, () =>
      handle.executeUpdate(controls[control]),
    );
    await deps.store.campaignProgress.recordState(changed);
    return { ok: true, campaign: changed };
  } catch (err) {
    const cancelled =
      err instanceof WorkflowUpdateFailedError &&
      err.cause instanceof ApplicationFailure &&
      err.cause.type === CAMPAIGN_CANCELLED;
    if (!cancelled && !(err instanceof WorkflowNotFoundError)) throw err;
    const now = await readCampaign(deps, campaign.integratorId, campaign.campaignId);
    return { ok: false, campaign: now ?? campaign };
  }
}
