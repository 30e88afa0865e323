// The erasure of one subject's events (docs/retention.md, "Erasing a subject"): every event of the integrator that
// names the id, with its deliveries, attempts and listing rows. Two passes over the integrator's events, each in
// budgeted calls that hand back their position: the first cancels the pending deliveries of the events it matches,
// then a wait lets attempts in flight record their answer, then the second erases. Each call is idempotent: a retried
// or repeated one finds what is left.
import { proxyActivities, setHandler, sleep } from '@temporalio/workflow';
import type { Activities } from '../activities/index.js';
import {
  erasureActivityOptions,
  subjectErasureProgressQuery,
  type SubjectErasureCounts,
  type SubjectErasureInput,
  type SubjectErasureProgress,
  type SubjectErasureStep,
  type WalkPosition,
} from './erasure-messages.js';

const acts = proxyActivities<Activities>(erasureActivityOptions);

export async function subjectErasureWorkflow(input: SubjectErasureInput): Promise<SubjectErasureProgress> {
  const counts: SubjectErasureCounts = { events: 0, deliveries: 0, attempts: 0, cancelledDeliveries: 0 };
  let step: SubjectErasureStep = 'cancelling';
  const progress = (): SubjectErasureProgress => ({
    integratorId: input.integratorId,
    subjectId: input.subjectId,
    step,
    counts: { ...counts },
  });
  setHandler(subjectErasureProgressQuery, progress);

  for (const mode of ['cancel', 'erase'] as const) {
    if (mode === 'erase') {
      step = 'waiting';
      await sleep(input.graceMs);
      step = 'erasing';
    }
    let from: WalkPosition | null = { walk: 0, after: null };
    while (from) {
      const r: { counts: SubjectErasureCounts; next: WalkPosition | null } = await acts.subjectErasurePass(
        input,
        mode,
        from,
      );
      counts.events += r.counts.events;
      counts.deliveries += r.counts.deliveries;
      counts.attempts += r.counts.attempts;
      counts.cancelledDeliveries += r.counts.cancelledDeliveries;
      from = r.next;
    }
  }
  step = 'done';
  return progress();
}
