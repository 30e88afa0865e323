import type { JSX } from 'preact';
import { apiGet } from '../api';
import { Badge, ErrorAlert, Loading, TableWrap, Time } from '../components/feedback';
import { PageTitle } from '../components/page-title';
import { DELIVERY_STATUSES } from '../event-types';
import { useAsync } from '../lib/hooks';
import { Link } from '../lib/router';
import { useSubscriptions } from '../lib/subscriptions';
import type { DeliverySummary, Subscription } from '../types';

function count(summary: DeliverySummary, status: (typeof DELIVERY_STATUSES)[number]): string {
  const n = summary.counts[status] ?? 0;
  return n >= summary.countLimit ? `at least ${n}` : String(n);
}

function SubscriptionHealth({ subscription: s }: { subscription: Subscription }): JSX.Element {
  const summary = useAsync(
    () => apiGet<DeliverySummary>(`/v1/webhooks/subscriptions/${s.id}/deliveries/summary`),
    [s.id],
  );
  const headingId = `health-${s.id}`;
  const d = summary.data;
  const pending = d?.counts.pending ?? 0;
  return (
    <article class="card" aria-labelledby={headingId} data-testid={`health-${s.id}`}>
      <h3 id={headingId} class="card-title">
        <span class="wrap">{s.url}</span>
      </h3>
      <p>
        <Badge kind={s.status}>{s.status}</Badge>
        {s.status === 'paused' ? ' Its deliveries are held until it is resumed.' : ''}
      </p>
      <ErrorAlert message={summary.error} />
      {summary.loading && !d ? <Loading what="the summary" /> : null}
      {d ? (
        <>
          <p data-testid="waiting-now">
            {pending === 0 ? 'Nothing is waiting now.' : `Waiting now: ${count(d, 'pending')} pending.`}
            {d.oldestPending ? (
              <>
                {' '}
                Oldest: <Link to={`/deliveries/${d.oldestPending.id}`}>{d.oldestPending.id}</Link>, created{' '}
                <Time iso={d.oldestPending.createdAt} />, {d.oldestPending.attemptCount} attempts, next{' '}
                <Time iso={d.oldestPending.nextAttemptAt} />.
              </>
            ) : null}
          </p>
          <TableWrap label={`Deliveries of ${s.url} by status`}>
            <table class="table compact">
              <caption class="visually-hidden">Deliveries by status</caption>
              <thead>
                <tr>
                  {DELIVERY_STATUSES.map((st) => (
                    <th key={st} scope="col">
                      {st}
                    </th>
                  ))}
                </tr>
              </thead>
              <tbody>
                <tr>
                  {DELIVERY_STATUSES.map((st) => (
                    <td key={st} class="num">
                      <Link to={`/deliveries?subscriptionId=${s.id}&status=${st}`}>{count(d, st)}</Link>
                    </td>
                  ))}
                </tr>
              </tbody>
            </table>
          </TableWrap>
        </>
      ) : null}
    </article>
  );
}

export function HealthPage(): JSX.Element {
  const subscriptions = useSubscriptions();
  const list = subscriptions.data ?? [];
  return (
    <>
      <PageTitle title="Health" />
      <section aria-labelledby="health-now">
        <h2 id="health-now">What is waiting now</h2>
        <ErrorAlert message={subscriptions.error} />
        {subscriptions.loading ? <Loading what="subscriptions" /> : null}
        {!subscriptions.loading && list.length === 0 && !subscriptions.error ? <p>No subscriptions.</p> : null}
        <div class="cards">
          {list.map((s) => (
            <SubscriptionHealth key={s.id} subscription={s} />
          ))}
        </div>
      </section>
      <section aria-labelledby="health-24h" class="placeholder" data-testid="chart-placeholder">
        <h2 id="health-24h">Last 24 hours (not available yet)</h2>
        <p>
          Placeholder: a chart of the last 24 hours needs an API endpoint that does not exist yet, so nothing is shown
          here.
        </p>
      </section>
    </>
  );
}
