// The release of a resumed subscription's held deliveries: oldest first, at most `ratePerSecond`, each by the
// `release` signal to its delivery's run. One per subscription (workflow id `release:<subscriptionId>`).
import { continueAsNew, getExternalWorkflowHandle, proxyActivities, sleep } from '@temporalio/workflow';
import type { Activities } from '../activities/index.js';
import { ATTEMPT_START_TO_CLOSE_MS } from '../src/domain/attempt-bounds.js';
import { deliveryWorkflowId, releaseSignal } from './messages.js';
import type { ReleaseInput } from './types.js';

/** Deliveries per run: each costs a signal and a timer (~7 history events); a full page continues as new. */
export const RELEASE_PAGE = 100;

const { listHeld } = proxyActivities<Activities>({
  startToCloseTimeout: '2 minutes',
  retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '60s' },
});

/**
 * Two passes over the held deliveries: the first from the oldest; the second, once every attempt that could have
 * read the subscription still paused has ended (the attempt's bound), from the oldest again for those it held after
 * the first pass had passed them. The release stops when the subscription is paused again (or deleted).
 */
export async function releaseWorkflow(input: ReleaseInput): Promise<{ released: number }> {
  let { released } = input;
  const page = await listHeld(input.subscriptionId, input.after, RELEASE_PAGE);
  if (page.stop) return { released };
  const gapMs = 1000 / input.ratePerSecond;
  for (const delivery of page.deliveries) {
    try {
      await getExternalWorkflowHandle(deliveryWorkflowId(delivery.id)).signal(releaseSignal);
      released += 1;
    } catch {
      // Its run has ended meanwhile (cancelled): nothing to release.
    }
    await sleep(gapMs);
  }
  const last = page.deliveries.at(-1);
  if (last && page.deliveries.length === RELEASE_PAGE) {
    return await continueAsNew<typeof releaseWorkflow>({ ...input, after: last, released });
  }
  if (!input.finalPass) {
    await sleep(ATTEMPT_START_TO_CLOSE_MS);
    return await continueAsNew<typeof releaseWorkflow>({ ...input, after: null, finalPass: true, released });
  }
  return { released };
}
