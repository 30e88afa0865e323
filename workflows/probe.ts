// The endpoint probe of a subscription Herald paused (endpoint_unhealthy, endpoint_gone): every intervalSeconds, one
// signed probe POST (the probeEndpoint activity); the first 2xx resumes the subscription as POST …/resume does. It
// ends when the subscription is no longer paused by Herald, or after its life cap. One per subscription (workflow id
// `probe:<subscriptionId>`).
import { continueAsNew, proxyActivities, sleep } from '@temporalio/workflow';
import type { Activities } from '../activities/index.js';
import type { ProbeInput } from './types.js';

/** Probes per run before continue-as-new: the history stays small (four events a probe). */
export const PROBES_PER_RUN = 200;

const { probeEndpoint } = proxyActivities<Activities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '60s', maximumAttempts: 5 },
});

export async function probeWorkflow(input: ProbeInput): Promise<{ outcome: 'resumed' | 'ended' | 'expired' }> {
  let left = input.probesLeft;
  for (let i = 0; i < PROBES_PER_RUN; i++) {
    if (left <= 0) return { outcome: 'expired' };
    await sleep(input.intervalSeconds * 1000);
    left -= 1;
    const result = await probeEndpoint(input.subscriptionId);
    if (result !== 'failing') return { outcome: result };
  }
  return await continueAsNew<typeof probeWorkflow>({ ...input, probesLeft: left });
}
