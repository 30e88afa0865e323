import type { JSX } from 'preact';
import { useId, useState } from 'preact/hooks';
import { ErrorAlert } from '../components/feedback';
import { PageTitle } from '../components/page-title';
import { useCanManage } from '../components/session-context';
import { forgetCampaign, rememberCampaign, storedCampaignIds } from '../lib/campaign-store';
import { isUuid } from '../lib/format';
import { useSubscriptions } from '../lib/subscriptions';
import { CampaignCard } from './campaign-card';
import { RecoveryForm } from './recovery-form';

function WatchForm({ onWatch }: { onWatch: (id: string) => void }): JSX.Element {
  const id = useId();
  const [value, setValue] = useState('');
  const [error, setError] = useState<string | null>(null);
  const submit = (e: Event): void => {
    e.preventDefault();
    if (!isUuid(value)) return setError('A campaign id is a UUID.');
    setError(null);
    onWatch(value.trim().toLowerCase());
    setValue('');
  };
  return (
    <form class="filters" onSubmit={submit} noValidate aria-label="Watch a campaign">
      <div class="field">
        <label for={`${id}-campaign`}>Campaign id</label>
        <input
          id={`${id}-campaign`}
          value={value}
          onInput={(e) => setValue(e.currentTarget.value)}
          aria-invalid={error ? true : undefined}
          aria-describedby={error ? `${id}-campaign-error` : undefined}
        />
        {error ? (
          <p id={`${id}-campaign-error`} class="field-error">
            {error}
          </p>
        ) : null}
      </div>
      <div class="actions">
        <button type="submit" class="button">
          Watch campaign
        </button>
      </div>
    </form>
  );
}

export function RecoveryPage(): JSX.Element {
  const canManage = useCanManage();
  const subscriptions = useSubscriptions();
  const [ids, setIds] = useState(storedCampaignIds);
  return (
    <>
      <PageTitle title="Recovery" />
      <p class="intro">
        A recovery campaign re-delivers a window of a subscription's failed (or cancelled) deliveries, oldest first, at
        a bounded rate. The same window names the same campaign.
      </p>
      {canManage ? (
        <section class="panel" aria-labelledby="start-recovery">
          <h2 id="start-recovery">Start a campaign</h2>
          <ErrorAlert message={subscriptions.error} />
          <RecoveryForm subscriptions={subscriptions.data ?? []} onStarted={(c) => setIds(rememberCampaign(c.id))} />
        </section>
      ) : null}
      <section aria-labelledby="campaigns">
        <h2 id="campaigns">Campaigns in this tab</h2>
        <WatchForm onWatch={(id) => setIds(rememberCampaign(id))} />
        {ids.length === 0 ? <p>No campaign yet.</p> : null}
        <div class="cards">
          {ids.map((id) => (
            <CampaignCard key={id} id={id} onForget={() => setIds(forgetCampaign(id))} />
          ))}
        </div>
      </section>
    </>
  );
}
