// An integrator's erasure (docs/retention.md, "Erasure"): revoke its keys and refuse its events, end its live work
// (subscriptions deleted, pending deliveries and campaigns cancelled), wait out ingestion's memory of it and attempts
// in flight, then erase its history in budgeted calls and its records last. Every step is idempotent: a worker or
// database failure retries the step, a re-run of the whole finds nothing left to do.
import { proxyActivities, setHandler, sleep } from '@temporalio/workflow';
import type { Activities } from '../activities/index.js';
import {
  erasureActivityOptions,
  erasureProgressQuery,
  type ErasureCounts,
  type ErasureInput,
  type ErasureProgress,
  type ErasureStep,
} from './erasure-messages.js';

const acts = proxyActivities<Activities>(erasureActivityOptions);

export async function erasureWorkflow(input: ErasureInput): Promise<ErasureProgress> {
  const counts: ErasureCounts = {
    deliveries: 0,
    attempts: 0,
    events: 0,
    subscriptions: 0,
    signingKeys: 0,
    campaigns: 0,
    cancelledDeliveries: 0,
  };
  let step: ErasureStep = 'revoking';
  const progress = (): ErasureProgress => ({ integratorId: input.integratorId, step, counts: { ...counts } });
  setHandler(erasureProgressQuery, progress);

  await acts.beginErasure(input.integratorId);
  step = 'cancelling';
  const live = await acts.endLiveWork(input.integratorId);
  counts.cancelledDeliveries = live.deliveries;
  step = 'waiting';
  await sleep(input.graceMs);
  step = 'erasing history';
  for (;;) {
    const r = await acts.eraseHistory(input.integratorId);
    counts.deliveries += r.deliveries;
    counts.attempts += r.attempts;
    counts.events += r.events;
    if (!r.more) break;
  }
  step = 'erasing records';
  const records = await acts.eraseRecords(input.integratorId);
  counts.subscriptions = records.subscriptions;
  counts.signingKeys = records.signingKeys;
  counts.campaigns = live.campaigns;
  step = 'done';
  return progress();
}
