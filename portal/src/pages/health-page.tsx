import type { JSX } from 'preact';
import { apiGet } from '../api';
import { Badge, ErrorAlert, Loading, Time } from '../components/feedback';
import { PageTitle } from '../components/page-title';
import { useAsync } from '../lib/hooks';
import { Link } from '../lib/router';
import { useSubscriptions } from '../lib/subscriptions';
import type { DeliveryPage, Subscription, SubscriptionStats } from '../types';
import { HealthChart } from './health-chart';

/** Pending deliveries read to say what is waiting: one listing page (the listing stays fast however long the history). */
const WAITING_SHOWN = 100;

function WaitingNow({ subscriptionId }: { subscriptionId: string }): JSX.Element {
  const pending = useAsync(
    () => apiGet<DeliveryPage>('/v1/webhooks/deliveries', { subscriptionId, status: 'pending', limit: WAITING_SHOWN }),
    [subscriptionId],
  );
  const list = pending.data?.deliveries;
  if (pending.error) return <ErrorAlert message={pending.error} />;
  if (!list) return <Loading what="what is waiting" />;
  // A page may end early (its scan budget spent) with a cursor: then what it found is a lower bound.
  const more = pending.data?.nextCursor !== null;
  const oldest = more ? null : list.at(-1);
  const pendingLink = `/deliveries?subscriptionId=${subscriptionId}&status=pending`;
  if (list.length === 0 && !more) return <p data-testid="waiting-now">Nothing is waiting now.</p>;
  return (
    <p data-testid="waiting-now">
      Waiting now: <Link to={pendingLink}>{more ? `at least ${list.length}` : list.length} pending</Link>.
      {oldest ? (
        <>
          {' '}
          Oldest: <Link to={`/deliveries/${oldest.id}`}>{oldest.id}</Link>, created <Time iso={oldest.createdAt} />,{' '}
          {oldest.attemptCount} attempts, next <Time iso={oldest.nextAttemptAt} />.
        </>
      ) : null}
    </p>
  );
}

function SubscriptionHealth({ subscription: s }: { subscription: Subscription }): JSX.Element {
  const stats = useAsync(() => apiGet<SubscriptionStats>(`/v1/webhooks/subscriptions/${s.id}/stats`), [s.id]);
  const headingId = `health-${s.id}`;
  return (
    <article class="card" aria-labelledby={headingId} data-testid={`health-${s.id}`}>
      <h3 id={headingId} class="card-title">
        <span class="wrap">{s.url}</span>
      </h3>
      <p>
        <Badge kind={s.status}>{s.status}</Badge>
        {s.status === 'paused' ? ' Its deliveries are held until it is resumed.' : ''}
      </p>
      <WaitingNow subscriptionId={s.id} />
      <ErrorAlert message={stats.error} />
      {stats.loading && !stats.data ? <Loading what="the last 24 hours" /> : null}
      {stats.data ? <HealthChart stats={stats.data} /> : null}
    </article>
  );
}

export function HealthPage(): JSX.Element {
  const subscriptions = useSubscriptions();
  const list = subscriptions.data ?? [];
  return (
    <>
      <PageTitle title="Health" />
      <p class="hint">
        Per subscription: what is waiting now, and the last 24 hours of attempts (success rate and latency, counted as
        attempts are recorded).
      </p>
      <ErrorAlert message={subscriptions.error} />
      {subscriptions.loading ? <Loading what="subscriptions" /> : null}
      {!subscriptions.loading && list.length === 0 && !subscriptions.error ? <p>No subscriptions.</p> : null}
      <div class="cards">
        {list.map((s) => (
          <SubscriptionHealth key={s.id} subscription={s} />
        ))}
      </div>
    </>
  );
}
