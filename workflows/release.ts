// The release of a resumed subscription's held deliveries: oldest first, at most `ratePerSecond`, each by the
// `release` signal to its delivery's run (sent, and paced, by the releasePage activity). One per subscription
// (workflow id `release:<subscriptionId>`).
import { continueAsNew, proxyActivities, sleep } from '@temporalio/workflow';
import type { Activities } from '../activities/index.js';
import { ATTEMPT_START_TO_CLOSE_MS } from '../src/domain/attempt-bounds.js';
import type { ReleaseInput } from './types.js';

/** At most this many deliveries per page, and about a minute of pacing at the rate. */
export const RELEASE_PAGE = 100;
const PAGE_SECONDS = 60;

const { releasePage } = proxyActivities<Activities>({
  startToCloseTimeout: '5 minutes',
  retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '60s' },
});

/**
 * Two passes over the held deliveries: the first from the oldest; the second, once every attempt that could have
 * read the subscription still paused has ended (the attempt's bound), from the oldest again for those it held after
 * the first pass had passed them. The release stops when the subscription is paused again (or deleted, disabled).
 */
export async function releaseWorkflow(input: ReleaseInput): Promise<{ released: number }> {
  const limit = Math.max(1, Math.min(RELEASE_PAGE, Math.floor(input.ratePerSecond * PAGE_SECONDS)));
  const page = await releasePage(input.subscriptionId, input.after, limit, input.ratePerSecond);
  const released = input.released + page.released;
  if (page.stop) return { released };
  if (page.last && page.count === limit) {
    return await continueAsNew<typeof releaseWorkflow>({ ...input, after: page.last, released });
  }
  if (!input.finalPass) {
    await sleep(ATTEMPT_START_TO_CLOSE_MS);
    return await continueAsNew<typeof releaseWorkflow>({ ...input, after: null, finalPass: true, released });
  }
  return { released };
}
