// An integrator's erasure: its workflow id, what it answers, and the query the API polls. Defined once here; the API
// imports these same constants (src/delivery/erasure.ts).
import type { ActivityOptions } from '@temporalio/common';
import { defineQuery } from '@temporalio/workflow';

/** The erasure workflows' activities: each call works about a minute and heartbeats; a failure retries it. */
export const erasureActivityOptions: ActivityOptions = {
  startToCloseTimeout: '10 minutes',
  heartbeatTimeout: '2 minutes',
  retry: { initialInterval: '5s', backoffCoefficient: 2, maximumInterval: '5 minutes' },
};

/** The erasure of one integrator: one workflow id, so a repeated request answers the same job. */
export const erasureWorkflowId = (integratorId: string): string => `erase:${integratorId}`;

export const erasureSteps = [
  'revoking',
  'cancelling',
  'waiting',
  'erasing history',
  'erasing records',
  'done',
] as const;
export type ErasureStep = (typeof erasureSteps)[number];

export interface ErasureCounts {
  deliveries: number;
  attempts: number;
  events: number;
  subscriptions: number;
  signingKeys: number;
  campaigns: number;
  /** Pending deliveries cancelled (their runs told) before the history was erased. */
  cancelledDeliveries: number;
}

export interface ErasureProgress {
  readonly integratorId: string;
  readonly step: ErasureStep;
  readonly counts: ErasureCounts;
}

export interface ErasureInput {
  readonly integratorId: string;
  /**
   * How long it waits between cancelling and erasing (ms): ingestion's memory of the integrator expires
   * (KNOWN_FOR_MS, src/store/integrators-repo.ts) and attempts in flight record their answer.
   */
  readonly graceMs: number;
}

export const erasureProgressQuery = defineQuery<ErasureProgress>('erasureProgress');

/** The erasure of one subject's events (a customer, an account, …) within one integrator's history. */
export const subjectErasureWorkflowId = (integratorId: string, subjectId: string): string =>
  `erase:${integratorId}:${subjectId}`;

export const subjectErasureSteps = ['cancelling', 'waiting', 'erasing', 'done'] as const;
export type SubjectErasureStep = (typeof subjectErasureSteps)[number];

export interface SubjectErasureCounts {
  events: number;
  deliveries: number;
  attempts: number;
  /** Pending deliveries of its events cancelled (their runs told) before they were erased. */
  cancelledDeliveries: number;
}

export interface SubjectErasureInput {
  readonly integratorId: string;
  /** The id an event names (a routing field or anywhere in its payload's text) to be erased. */
  readonly subjectId: string;
  /** Events stored before this instant (ISO 8601, the request's) are examined; later ones are new data. */
  readonly before: string;
  /** Between cancelling and erasing (ms): attempts in flight record their answer first. */
  readonly graceMs: number;
}

export interface SubjectErasureProgress {
  readonly integratorId: string;
  readonly subjectId: string;
  readonly step: SubjectErasureStep;
  readonly counts: SubjectErasureCounts;
}

/** Where a pass over the integrator's events stands: which walk, after which row (null: from its oldest). */
export interface WalkPosition {
  readonly walk: number;
  readonly after: { readonly c: number; readonly i: string } | null;
}

export const subjectErasureProgressQuery = defineQuery<SubjectErasureProgress>('subjectErasureProgress');
