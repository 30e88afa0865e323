// An integrator's erasure: its workflow id, what it answers, and the query the API polls. Defined once here; the API
// imports these same constants (src/delivery/erasure.ts).
import { defineQuery } from '@temporalio/workflow';

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
