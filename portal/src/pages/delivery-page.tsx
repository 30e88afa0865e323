import type { JSX } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { apiGet, apiPost } from '../api';
import { ErrorAlert, Loading, LoadMore, StatusLine } from '../components/feedback';
import { PageTitle } from '../components/page-title';
import { useCanManage } from '../components/session-context';
import { useAction, useAsync } from '../lib/hooks';
import { messageOf } from '../api';
import { AttemptsTable } from './attempts-table';
import { DeliveryFacts } from './delivery-facts';
import type { Attempt, AttemptPage, DeliveryWithAttempts } from '../types';

export function DeliveryPage({ id }: { id: string }): JSX.Element {
  const canManage = useCanManage();
  const base = `/v1/webhooks/deliveries/${encodeURIComponent(id)}`;
  const delivery = useAsync(() => apiGet<DeliveryWithAttempts>(base), [base]);
  const [more, setMore] = useState<{ attempts: Attempt[]; nextAfter: number | null } | null>(null);
  const [moreError, setMoreError] = useState<string | null>(null);
  const [notice, setNotice] = useState('');
  const action = useAction();
  useEffect(() => setMore(null), [delivery.data]);

  const d = delivery.data;
  const attempts = [...(d?.attempts ?? []), ...(more?.attempts ?? [])];
  const nextAfter = more ? more.nextAfter : (d?.attemptsNextAfter ?? null);
  const loadMore = (): void => {
    apiGet<AttemptPage>(`${base}/attempts`, { after: nextAfter, limit: 100 }).then(
      (page) => setMore({ attempts: [...(more?.attempts ?? []), ...page.attempts], nextAfter: page.nextAfter }),
      (err: unknown) => setMoreError(messageOf(err)),
    );
  };
  const act = (suffix: 'retry' | 'cancel', done: string): void =>
    action.run(async () => {
      setNotice('');
      await apiPost(`${base}/${suffix}`);
      setNotice(done);
      delivery.reload();
    });

  return (
    <>
      <PageTitle title={`Delivery ${id}`} />
      <div class="actions">
        <button type="button" class="button" onClick={delivery.reload} disabled={delivery.loading}>
          Refresh
        </button>
        {canManage && d ? (
          <button
            type="button"
            class="button button-primary"
            disabled={action.busy}
            onClick={() => act('retry', 'Retry requested: the delivery is attempted now.')}
          >
            Retry
          </button>
        ) : null}
        {canManage && d?.status === 'pending' ? (
          <button
            type="button"
            class="button button-danger"
            disabled={action.busy}
            onClick={() => act('cancel', 'Delivery cancelled: no further attempt is made.')}
          >
            Cancel delivery
          </button>
        ) : null}
      </div>
      <StatusLine>{notice}</StatusLine>
      <ErrorAlert message={action.error} />
      <ErrorAlert message={delivery.error} />
      {delivery.loading && !d ? <Loading what="the delivery" /> : null}
      {d ? <DeliveryFacts delivery={d} /> : null}
      {d ? (
        <section aria-labelledby="attempts-heading">
          <h2 id="attempts-heading">Attempts</h2>
          {attempts.length === 0 ? <p>No attempt recorded yet.</p> : <AttemptsTable attempts={attempts} />}
          <ErrorAlert message={moreError} />
          <LoadMore hasMore={nextAfter !== null} loading={false} onClick={loadMore} label="Load more attempts" />
        </section>
      ) : null}
    </>
  );
}
