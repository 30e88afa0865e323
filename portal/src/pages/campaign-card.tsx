import type { JSX } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { ApiError, apiGet, apiPost, messageOf } from '../api';
import { Badge, ErrorAlert, Time } from '../components/feedback';
import { useCanManage } from '../components/session-context';
import { useAction } from '../lib/hooks';
import type { RecoveryCampaign } from '../types';

const POLL_MS = 2000;
const finished = (c: RecoveryCampaign | null): boolean => c?.state === 'completed' || c?.state === 'cancelled';

/** One campaign, read every 2 s until it has completed or was cancelled. */
export function CampaignCard({ id, onForget }: { id: string; onForget: () => void }): JSX.Element {
  const canManage = useCanManage();
  const [campaign, setCampaign] = useState<RecoveryCampaign | null>(null);
  const [readError, setReadError] = useState<string | null>(null);
  const [gone, setGone] = useState(false);
  const action = useAction();
  const path = `/v1/webhooks/campaigns/${encodeURIComponent(id)}`;

  const done = finished(campaign);
  useEffect(() => {
    if (done || gone) return undefined;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let alive = true;
    const poll = (): void => {
      apiGet<RecoveryCampaign>(path).then(
        (c) => {
          if (!alive) return;
          setCampaign(c);
          setReadError(null);
          if (!finished(c)) timer = setTimeout(poll, POLL_MS);
        },
        (err: unknown) => {
          if (!alive) return;
          setReadError(messageOf(err));
          if (err instanceof ApiError && (err.status === 404 || err.status === 400)) setGone(true);
          else timer = setTimeout(poll, POLL_MS);
        },
      );
    };
    poll();
    return () => {
      alive = false;
      clearTimeout(timer);
    };
  }, [path, done, gone]);

  const act = (verb: 'pause' | 'resume' | 'cancel'): void =>
    action.run(async () => setCampaign(await apiPost<RecoveryCampaign>(`${path}/${verb}`)));
  const c = campaign;
  const headingId = `campaign-${id}`;
  return (
    <article class="card" aria-labelledby={headingId} data-testid={`campaign-${id}`}>
      <h3 id={headingId} class="card-title">
        Campaign <code class="wrap">{id}</code>
      </h3>
      <ErrorAlert message={readError} />
      {c ? (
        <>
          <p>
            <Badge kind={c.state}>{c.state}</Badge> subscription <code class="wrap">{c.subscriptionId}</code>
          </p>
          <p>
            Window <Time iso={c.since} /> to <Time iso={c.until} />, statuses {c.statuses.join(', ')}, {c.ratePerSecond}
            /s
          </p>
          <label class="progress">
            <span>
              Progress: {c.done} of {c.total} done
            </span>
            <progress max={Math.max(c.total, 1)} value={c.total === 0 && done ? 1 : c.done} />
          </label>
          <dl class="facts compact">
            <dt>Requested</dt>
            <dd>{c.requested}</dd>
            <dt>Succeeded</dt>
            <dd>{c.succeeded}</dd>
            <dt>Failed</dt>
            <dd>{c.failed}</dd>
            <dt>Skipped</dt>
            <dd>{c.skipped}</dd>
          </dl>
        </>
      ) : null}
      <div class="actions">
        {canManage && c?.state === 'running' ? (
          <button type="button" class="button" disabled={action.busy} onClick={() => act('pause')}>
            Pause
          </button>
        ) : null}
        {canManage && c?.state === 'paused' ? (
          <button type="button" class="button" disabled={action.busy} onClick={() => act('resume')}>
            Resume
          </button>
        ) : null}
        {canManage && c && !done ? (
          <button type="button" class="button button-danger" disabled={action.busy} onClick={() => act('cancel')}>
            Cancel campaign
          </button>
        ) : null}
        <button type="button" class="button button-small" onClick={onForget}>
          Remove from list
        </button>
      </div>
      <ErrorAlert message={action.error} />
    </article>
  );
}
