// A recovery campaign: re-delivers a subscription's failed (optionally cancelled) deliveries of a time window, oldest
// first, at a bounded rate, through the manual retry path. Pausable, resumable, cancellable; its progress is recorded
// in the database by its activities (each call carries it), a query, the current details in the Temporal UI, and its
// result. Candidates are read a page at a time by an activity, so the history holds one page at most; a long campaign
// continues as new at a page boundary.
import {
  ApplicationFailure,
  allHandlersFinished,
  condition,
  continueAsNew,
  proxyActivities,
  setCurrentDetails,
  setHandler,
  sleep,
  workflowInfo,
} from '@temporalio/workflow';
import type { Activities } from '../activities/index.js';
import type { CandidatePosition } from '../src/store/recovery-candidates.js';
import {
  CAMPAIGN_CANCELLED,
  campaignProgressQuery,
  cancelCampaignUpdate,
  pauseCampaignUpdate,
  resumeCampaignUpdate,
  type AwaitedAttempt,
  type CampaignCounts,
  type CampaignInput,
  type CampaignProgress,
} from './recovery-messages.js';

const { countRecoveryCandidates, listRecoveryCandidates, requestRedeliveries, readRedeliveries } =
  proxyActivities<Activities>({
    startToCloseTimeout: '60s',
    retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '30s' },
  });

/** Candidates read per activity call: the most of the list the history holds at once. */
const PAGE_SIZE = 100;
/** The shortest tick: the dev server fires timers on whole seconds, so a campaign paces itself per tick. */
const MIN_TICK_MS = 1000;
/** Asked-for attempts read in one go once this many are waiting (and at every page end). */
const READ_BATCH = 20;
/** How often the waiting attempts are read again once every re-delivery has been asked for. */
const READ_AGAIN_MS = 1000;

export async function recoveryWorkflow(input: CampaignInput): Promise<CampaignProgress> {
  const { window } = input;
  // Each tick asks for `perTick` re-deliveries, spaced evenly across it by the activity.
  const tickMs = Math.max(MIN_TICK_MS, 1000 / input.ratePerSecond);
  const perTick = Math.max(1, Math.round((input.ratePerSecond * tickMs) / 1000));
  let counts: CampaignCounts = input.carried?.progress ?? {
    state: 'running',
    total: 0,
    requested: 0,
    succeeded: 0,
    failed: 0,
    skipped: 0,
  };
  let awaited: AwaitedAttempt[] = [...(input.carried?.awaited ?? [])];
  const progress = (): CampaignProgress => ({
    campaignId: input.campaignId,
    integratorId: input.integratorId,
    window,
    ratePerSecond: input.ratePerSecond,
    ...counts,
  });
  const setState = (state: CampaignCounts['state']): CampaignProgress => {
    counts = { ...counts, state };
    showDetails();
    return progress();
  };
  const showDetails = () =>
    setCurrentDetails(
      `**${counts.state}**: ${counts.requested} of ${counts.total} re-deliveries asked for at ${input.ratePerSecond}/s; ` +
        `${counts.succeeded} succeeded, ${counts.failed} failed, ${counts.skipped} skipped`,
    );
  const refuseIfCancelled = () => {
    if (counts.state === 'cancelled')
      throw ApplicationFailure.create({ type: CAMPAIGN_CANCELLED, message: 'the campaign was cancelled' });
  };

  setHandler(campaignProgressQuery, progress);
  setHandler(pauseCampaignUpdate, () => setState('paused'), { validator: refuseIfCancelled });
  setHandler(resumeCampaignUpdate, () => setState('running'), { validator: refuseIfCancelled });
  setHandler(cancelCampaignUpdate, () => setState('cancelled'));

  /** Reads the awaited attempts and counts those that have ended. */
  const tally = async (): Promise<void> => {
    if (awaited.length === 0) return;
    const verdicts = await readRedeliveries(awaited, progress());
    const ended = { succeeded: 0, failed: 0, skipped: 0 };
    awaited = awaited.filter((_, i) => {
      const v = verdicts[i]!;
      if (v === 'waiting') return true;
      ended[v] += 1;
      return false;
    });
    counts = {
      ...counts,
      succeeded: counts.succeeded + ended.succeeded,
      failed: counts.failed + ended.failed,
      skipped: counts.skipped + ended.skipped,
    };
    showDetails();
  };

  if (!input.carried) counts = { ...counts, total: await countRecoveryCandidates(window) };
  showDetails();
  let position: CandidatePosition | null = input.carried?.position ?? null;
  for (;;) {
    if (counts.state === 'cancelled') break;
    const page = await listRecoveryCandidates(window, position, PAGE_SIZE);
    for (let i = 0; i < page.items.length; i += perTick) {
      await condition(() => counts.state !== 'paused');
      if (counts.state === 'cancelled') break;
      const paced = sleep(tickMs);
      const requests = await requestRedeliveries(page.items.slice(i, i + perTick), tickMs / perTick, progress());
      const skipped = requests.filter((r) => 'skipped' in r).length;
      counts = { ...counts, requested: counts.requested + requests.length, skipped: counts.skipped + skipped };
      for (const r of requests) if (!('skipped' in r)) awaited.push(r);
      if (awaited.length >= READ_BATCH) await tally();
      else showDetails();
      await paced;
    }
    await tally();
    if (page.next === null || counts.state === 'cancelled') break;
    if (workflowInfo().historyLength > (input.maxHistoryEvents ?? 2000) || workflowInfo().continueAsNewSuggested) {
      await condition(allHandlersFinished);
      return await continueAsNew<typeof recoveryWorkflow>({
        ...input,
        carried: { progress: counts, position: page.next, awaited },
      });
    }
    position = page.next;
  }
  // Every re-delivery asked for ends within an attempt's bounds: read them until each has.
  while (awaited.length > 0) {
    await sleep(READ_AGAIN_MS);
    await tally();
  }
  if (counts.state !== 'cancelled') setState('completed');
  await condition(allHandlersFinished);
  return progress();
}
