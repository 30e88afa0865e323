import type { Db } from 'mongodb';
import type { Position } from './cursor.js';
import type { DeliveryDoc } from './documents.js';
import { listOperatorDeliveries, type OperatorDeliveryFilters } from './operator-deliveries.js';
import {
  candidatePage,
  countCandidates,
  summarise,
  type CandidatePosition,
  type RecoveryWindow,
} from './recovery-candidates.js';

/**
 * The reads of deliveries off the hot path, as one repository: the operators' listing, a subscription's summary and
 * a recovery campaign's candidates. None is served by a bare `_id` (see the files they come from).
 */
export function createDeliveryReportsRepo(db: Db) {
  const deliveries = db.collection<DeliveryDoc>('deliveries');
  return {
    /** Every integrator's deliveries, newest first, `limit` after `position` (src/store/operator-deliveries.ts). */
    operatorPage: (filters: OperatorDeliveryFilters, position: Position | null, limit: number) =>
      listOperatorDeliveries(deliveries, filters, position, limit),
    /** A subscription's deliveries counted by status (each count stopping at `limit`) and its oldest pending one. */
    summary: (subscriptionId: string, limit: number) => summarise(deliveries, subscriptionId, limit),
    countCandidates: (window: RecoveryWindow) => countCandidates(deliveries, window),
    candidatePage: (window: RecoveryWindow, position: CandidatePosition | null, limit: number) =>
      candidatePage(deliveries, window, position, limit),
  };
}

export type DeliveryReportsRepo = ReturnType<typeof createDeliveryReportsRepo>;
