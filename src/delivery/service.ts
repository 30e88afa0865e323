// The one door to delivery's lifecycle: every workflow Herald starts, signals, updates or queries, from the API's
// routes and from the worker's activities alike, is reached through this service.
import type { Client } from '@temporalio/client';
import type { Config } from '../config.js';
import type { EventPayloadFields } from '../domain/event-payload.js';
import type { DeliveryDoc, SubscriptionDoc } from '../store/documents.js';
import type { Store } from '../store/index.js';
import { createAutoPause } from './auto-pause.js';
import { readErasure, readSubjectErasure, startErasure, startSubjectErasure } from './erasure.js';
import { openCampaign } from './campaign-admission.js';
import { cancelDelivery } from './cancel-delivery.js';
import { cancelPendingDeliveries } from './cancel-pending.js';
import { createStartProbe } from './endpoint-probe.js';
import { createFanOut, type FanOut } from './fan-out.js';
import { ingestEvent } from './ingest.js';
import { retryDelivery } from './manual-retry.js';
import {
  campaignStateOf,
  controlCampaign,
  readCampaign,
  type CampaignControl,
  type CampaignRequest,
} from './recovery-campaign.js';
import type { CampaignProgress } from '../../workflows/recovery-messages.js';
import { fifoSeqReader, releaseSignaller, startRelease } from './release-held.js';
import { pauseSubscription, resumeSubscription } from './subscription-pause.js';
import { sendTestDelivery } from './test-send.js';

export interface DeliveryServiceDeps {
  readonly store: Store;
  /** Starts, signals, updates and queries the workflows. */
  readonly client: Client;
  readonly config: Pick<
    Config,
    | 'TEMPORAL_TASK_QUEUE'
    | 'HERALD_CAMPAIGNS_PER_INTEGRATOR'
    | 'HERALD_CAMPAIGN_STARTS_PER_HOUR'
    | 'HERALD_RESUME_RATE'
    | 'HERALD_HEALTH_PROBE_SECONDS'
    | 'HERALD_WORKFLOW_ANSWER_MS'
    | 'HERALD_ERASURE_GRACE_SECONDS'
  >;
  /**
   * The client of the API's in-process worker while it runs (src/temporal/api-worker.ts), else null: the hand-off's
   * starts through it ask for eager start. None in a worker process.
   */
  readonly eagerClient?: () => Client | null;
  /** Wraps the hand-off, e.g. in a span (the API's: src/telemetry/instrument.ts). */
  readonly wrapFanOut?: (fanOut: FanOut) => FanOut;
}

/** Built once per process, over its repositories and its Temporal client. */
export function createDeliveryService(deps: DeliveryServiceDeps) {
  const { store, client, config } = deps;
  const temporal = { store, client, taskQueue: config.TEMPORAL_TASK_QUEUE };
  const handOff = createFanOut({ ...temporal, ...(deps.eagerClient ? { eagerClient: deps.eagerClient } : {}) });
  const fanOut = deps.wrapFanOut?.(handOff) ?? handOff;
  const probeSeconds = config.HERALD_HEALTH_PROBE_SECONDS;
  const startProbe = probeSeconds > 0 ? createStartProbe({ ...temporal, intervalSeconds: probeSeconds }) : null;
  const release = (subscriptionId: string) => startRelease(temporal, subscriptionId, config.HERALD_RESUME_RATE);
  // A campaign's query or update waits for a worker at most this long (WorkflowUnansweredError beyond).
  const campaigns = { ...temporal, answerWithinMs: config.HERALD_WORKFLOW_ANSWER_MS };
  const campaignDeps = {
    ...campaigns,
    campaignsPerIntegrator: config.HERALD_CAMPAIGNS_PER_INTEGRATOR,
    startsPerHour: config.HERALD_CAMPAIGN_STARTS_PER_HOUR,
  };

  return {
    /** Starts an event's deliveries (the ingest's first step; the event is not stored). */
    fanOut,
    /** POST /internal/v1/events: hand-off, insert, commit-lag repair, listing rows (src/delivery/ingest.ts). */
    ingest: (fields: EventPayloadFields, log: Parameters<typeof ingestEvent>[2]) =>
      ingestEvent({ store, fanOut }, fields, log),
    /** §4.2: a signed webhook.test delivery, answered once its first attempt has been made. */
    testSend: (subscription: SubscriptionDoc, eventId?: string) => sendTestDelivery(temporal, subscription, eventId),
    /** Attempt now (integrators, operators, and a campaign's re-deliveries). */
    retry: (delivery: DeliveryDoc) => retryDelivery(temporal, delivery),
    cancel: (delivery: DeliveryDoc) => cancelDelivery(temporal, delivery),
    /** A deleted subscription's pending deliveries, cancelled and their workflows told. */
    cancelPending: (subscription: { integratorId: string; _id: string }) =>
      cancelPendingDeliveries(temporal, subscription),
    pause: (integratorId: string, id: string) => pauseSubscription(store, integratorId, id),
    resume: (integratorId: string, id: string) => resumeSubscription({ store, release }, integratorId, id),
    /** Releases a resumed subscription's held deliveries, oldest first, at HERALD_RESUME_RATE. */
    release,
    /** Herald's own pause (410 Gone, sustained failure), its operational event, and the endpoint probe. */
    autoPause: createAutoPause({ store, fanOut, startProbe }),
    signalRelease: releaseSignaller(client),
    fifoSeqOf: fifoSeqReader(client),
    /** Opens the recovery campaign of a window of a subscription's deliveries (or answers the one it has). */
    recover: (subscription: SubscriptionDoc, request: CampaignRequest) =>
      openCampaign(campaignDeps, subscription, request),
    campaign: (integratorId: string, campaignId: string) => readCampaign(campaigns, integratorId, campaignId),
    controlCampaign: (campaign: CampaignProgress, control: CampaignControl) =>
      controlCampaign(campaigns, campaign, control),
    campaignState: (workflowId: string) => campaignStateOf(campaigns, workflowId),
    /** DELETE /internal/v1/integrators/{id}: its erasure started, or the one it has (src/delivery/erasure.ts). */
    erase: (integratorId: string) => startErasure(campaigns, integratorId, config.HERALD_ERASURE_GRACE_SECONDS * 1000),
    erasure: (integratorId: string) => readErasure(campaigns, integratorId),
    /** DELETE /internal/v1/integrators/{id}/subjects/{subjectId}: the erasure of the events naming it. */
    eraseSubject: (integratorId: string, subjectId: string) =>
      startSubjectErasure(campaigns, integratorId, subjectId, config.HERALD_ERASURE_GRACE_SECONDS * 1000),
    subjectErasure: (integratorId: string, subjectId: string) => readSubjectErasure(campaigns, integratorId, subjectId),
  };
}

export type DeliveryService = ReturnType<typeof createDeliveryService>;
