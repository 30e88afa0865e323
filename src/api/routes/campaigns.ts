import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { WorkflowUnansweredError, type CampaignControl } from '../../delivery/index.js';
import { badRequest, errorResponses, HttpError, notFound, tooMany } from '../errors.js';
import { integratorOf } from '../request-context.js';
import { campaign, campaignParams, recoverBody } from '../schemas/campaigns.js';
import { uuid } from '../schemas/common.js';
import { campaignView } from '../views/campaigns.js';

/** Campaigns re-send old deliveries: on an ordered subscription that would break its order (docs/deliveries.md). */
const ORDERED_REFUSAL =
  'this subscription delivers in order (ordering fifo): old deliveries are not re-sent by a campaign; retry the ' +
  'failed delivery that paused it, or resume it';

const tags = ['campaigns'];

const controlSummaries: Record<CampaignControl, string> = {
  pause: 'Pause a recovery campaign: no more re-deliveries are asked for until it is resumed',
  resume: 'Resume a paused recovery campaign',
  cancel: 'Cancel a recovery campaign: no more re-deliveries are asked for; those asked for still finish',
};

/** Seconds a client is asked to wait after a 503 `workflow_unavailable`. */
const UNANSWERED_RETRY_AFTER_SEC = 5;
const UNANSWERED_DESCRIPTION =
  ' 503 workflow_unavailable (with Retry-After) when no worker answered for the campaign in time (none running, or ' +
  'all busy): nothing is lost, ask again.';

/** Runs a handler's body, answering a campaign no worker answered for as 503 `workflow_unavailable`. */
async function answering<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (!(err instanceof WorkflowUnansweredError)) throw err;
    const retryAfter = { 'retry-after': String(UNANSWERED_RETRY_AFTER_SEC) };
    throw new HttpError(503, 'workflow_unavailable', 'no worker answered for this campaign in time; retry', retryAfter);
  }
}

/** Recovery campaigns (docs/deliveries.md, "Recovery campaigns"): start, read, pause, resume, cancel. */
export const campaignRoutes: FastifyPluginAsyncZod = async (app) => {
  app.post(
    '/v1/webhooks/subscriptions/:subscription_id/recover',
    {
      schema: {
        tags,
        summary: "Re-deliver a window of a subscription's failed (or cancelled) deliveries, paced",
        description:
          'Starts one recovery campaign (202) that asks for one more attempt of each delivery of the subscription ' +
          'created in [since, until) with one of the statuses, oldest first, at ratePerSecond. The same window and ' +
          'statuses name the same campaign: a repeated request answers it (200), running or ended. 400 ' +
          'invalid_window when until is not after since; 400 outside_retention when since is older than the ' +
          'retention (HERALD_RETENTION). 409 campaign_running while another campaign of the ' +
          'subscription runs or is paused (cancel it, or let it complete); 409 quota_exceeded while the integrator ' +
          'has HERALD_CAMPAIGNS_PER_INTEGRATOR of them; 409 ordered_subscription for a subscription with ordering ' +
          'fifo (re-sending old deliveries would break its order). A delivery re-sent by one campaign is skipped by the next ' +
          'for HERALD_CAMPAIGN_RESEND_WINDOW_HOURS; re-deliveries wait while the subscription is paused and while ' +
          "the integrator's hourly re-send budget (HERALD_RESEND_BUDGET_PER_HOUR) is spent." +
          UNANSWERED_DESCRIPTION,
        params: z.strictObject({ subscription_id: uuid }),
        body: recoverBody,
        response: { 200: campaign, 202: campaign, ...errorResponses(400, 401, 404, 409, 429, 503) },
      },
    },
    async (request, reply) => {
      const subscription = await app.store.subscriptions.findLive(
        integratorOf(request),
        request.params.subscription_id,
      );
      if (!subscription) throw notFound();
      if (subscription.ordering === 'fifo') throw new HttpError(409, 'ordered_subscription', ORDERED_REFUSAL);
      const { since, until, statuses, ratePerSecond } = request.body;
      const window = { since, until };
      if (window.until && window.until <= window.since) throw badRequest('until must be after since', 'invalid_window');
      const kept = new Date(Date.now() - app.config.HERALD_RETENTION);
      if (window.since < kept)
        throw badRequest(
          `since is before what Herald keeps (HERALD_RETENTION: what ended before ${kept.toISOString()} may be ` +
            'purged, docs/retention.md): start the window later',
          'outside_retention',
        );
      const opened = await answering(() =>
        app.deliveryService.recover(subscription, { ...window, statuses, ratePerSecond }),
      );
      if (opened.ok) return await reply.code(opened.created ? 202 : 200).send(campaignView(opened.campaign));
      if (opened.reason === 'campaign_running')
        throw new HttpError(409, 'campaign_running', `campaign ${opened.heldBy} of this subscription is running`);
      if (opened.reason === 'start_quota') {
        const perHour = app.config.HERALD_CAMPAIGN_STARTS_PER_HOUR;
        throw tooMany(
          'quota_exceeded',
          `at most ${perHour} campaign starts per integrator per hour`,
          opened.retryAfterSec,
        );
      }
      const max = app.config.HERALD_CAMPAIGNS_PER_INTEGRATOR;
      throw new HttpError(409, 'quota_exceeded', `at most ${max} running campaigns per integrator`);
    },
  );

  app.get(
    '/v1/webhooks/campaigns/:campaign_id',
    {
      schema: {
        tags,
        summary: 'A recovery campaign and its progress',
        description: `A running campaign answers through a worker.${UNANSWERED_DESCRIPTION}`,
        params: campaignParams,
        response: { 200: campaign, ...errorResponses(400, 401, 404, 503) },
      },
    },
    async (request) => {
      const id = request.params.campaign_id;
      const found = await answering(() => app.deliveryService.campaign(integratorOf(request), id));
      if (!found) throw notFound();
      return campaignView(found);
    },
  );

  for (const control of ['pause', 'resume', 'cancel'] as const) {
    app.post(
      `/v1/webhooks/campaigns/:campaign_id/${control}`,
      {
        schema: {
          tags,
          summary: controlSummaries[control],
          description:
            'Idempotent; answers the campaign after the change. 409 campaign_finished when it has completed' +
            (control === 'cancel' ? '.' : ' or was cancelled.') +
            UNANSWERED_DESCRIPTION +
            ' The change may still be made once a worker runs: read the campaign.',
          params: campaignParams,
          response: { 200: campaign, ...errorResponses(400, 401, 404, 409, 503) },
        },
      },
      async (request) => {
        const id = request.params.campaign_id;
        const found = await answering(() => app.deliveryService.campaign(integratorOf(request), id));
        if (!found) throw notFound();
        const verdict = await answering(() => app.deliveryService.controlCampaign(found, control));
        if (!verdict.ok) throw new HttpError(409, 'campaign_finished', `the campaign is ${verdict.campaign.state}`);
        return campaignView(verdict.campaign);
      },
    );
  }
};
