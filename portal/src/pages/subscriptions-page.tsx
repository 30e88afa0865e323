import type { JSX } from 'preact';
import { apiGet } from '../api';
import { ErrorAlert, Loading, LoadMore } from '../components/feedback';
import { PageTitle } from '../components/page-title';
import { useCanManage } from '../components/session-context';
import { usePaged } from '../lib/hooks';
import { SubscriptionCard } from './subscription-card';
import { SubscriptionForm } from './subscription-form';
import type { Subscription, SubscriptionPage } from '../types';

export function SubscriptionsPage(): JSX.Element {
  const canManage = useCanManage();
  const list = usePaged<Subscription>(async (cursor) => {
    const page = await apiGet<SubscriptionPage>('/v1/webhooks/subscriptions', { cursor, limit: 50 });
    return { items: page.subscriptions, next: page.nextCursor };
  }, []);
  return (
    <>
      <PageTitle title="Subscriptions" />
      {canManage ? (
        <section class="panel" aria-labelledby="new-subscription">
          <h2 id="new-subscription">New subscription</h2>
          <SubscriptionForm onSaved={list.reload} />
        </section>
      ) : null}
      <ErrorAlert message={list.error} />
      {list.loading && list.items.length === 0 ? <Loading what="subscriptions" /> : null}
      {!list.loading && !list.error && list.items.length === 0 ? <p>No subscriptions yet.</p> : null}
      <div class="cards">
        {list.items.map((s) => (
          <SubscriptionCard key={s.id} subscription={s} onDeleted={list.reload} />
        ))}
      </div>
      <LoadMore hasMore={list.hasMore} loading={list.loading} onClick={list.loadMore} />
    </>
  );
}
