import type { JSX } from 'preact';
import { useId, useState } from 'preact/hooks';
import { apiGet } from '../api';
import { ErrorAlert, Loading, LoadMore } from '../components/feedback';
import { PageTitle } from '../components/page-title';
import { DELIVERY_STATUSES } from '../event-types';
import { usePaged } from '../lib/hooks';
import { isUuid } from '../lib/format';
import { replaceSearch } from '../lib/router';
import { useSubscriptions } from '../lib/subscriptions';
import { DeliveriesTable } from './deliveries-table';
import type { Delivery, DeliveryPage } from '../types';

interface Filters {
  subscriptionId: string;
  status: string;
  eventId: string;
}

const fromSearch = (s: URLSearchParams): Filters => ({
  subscriptionId: s.get('subscriptionId') ?? '',
  status: s.get('status') ?? '',
  eventId: s.get('eventId') ?? '',
});

export function DeliveriesPage({ search }: { search: URLSearchParams }): JSX.Element {
  const id = useId();
  const [filters, setFilters] = useState<Filters>(() => fromSearch(search));
  const [draft, setDraft] = useState<Filters>(filters);
  const [eventIdError, setEventIdError] = useState<string | null>(null);
  const subscriptions = useSubscriptions();
  const list = usePaged<Delivery>(
    async (cursor) => {
      const page = await apiGet<DeliveryPage>('/v1/webhooks/deliveries', { ...filters, cursor, limit: 50 });
      return { items: page.deliveries, next: page.nextCursor };
    },
    [filters.subscriptionId, filters.status, filters.eventId],
  );

  const apply = (e: Event): void => {
    e.preventDefault();
    const eventId = draft.eventId.trim();
    if (eventId && !isUuid(eventId)) return setEventIdError('An event id is a UUID, e.g. 0b7c…-…');
    setEventIdError(null);
    const next = { ...draft, eventId };
    setFilters(next);
    replaceSearch(new URLSearchParams(Object.entries(next).filter(([, v]) => v !== '')));
  };
  const set = (name: keyof Filters) => (e: Event) =>
    setDraft({ ...draft, [name]: (e.currentTarget as HTMLInputElement | HTMLSelectElement).value });

  return (
    <>
      <PageTitle title="Deliveries" />
      <form class="filters" onSubmit={apply} aria-label="Delivery filters" noValidate>
        <div class="field">
          <label for={`${id}-sub`}>Subscription</label>
          <select id={`${id}-sub`} value={draft.subscriptionId} onChange={set('subscriptionId')}>
            <option value="">All subscriptions</option>
            {(subscriptions.data ?? []).map((s) => (
              <option key={s.id} value={s.id}>
                {s.url}
              </option>
            ))}
            {draft.subscriptionId && !subscriptions.data?.some((s) => s.id === draft.subscriptionId) ? (
              <option value={draft.subscriptionId}>{draft.subscriptionId}</option>
            ) : null}
          </select>
        </div>
        <div class="field">
          <label for={`${id}-status`}>Status</label>
          <select id={`${id}-status`} value={draft.status} onChange={set('status')}>
            <option value="">Any status</option>
            {DELIVERY_STATUSES.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        </div>
        <div class="field">
          <label for={`${id}-event`}>Event id</label>
          <input
            id={`${id}-event`}
            value={draft.eventId}
            onInput={set('eventId')}
            aria-invalid={eventIdError ? true : undefined}
            aria-describedby={eventIdError ? `${id}-event-error` : undefined}
          />
          {eventIdError ? (
            <p id={`${id}-event-error`} class="field-error">
              {eventIdError}
            </p>
          ) : null}
        </div>
        <div class="actions">
          <button type="submit" class="button button-primary">
            Apply filters
          </button>
        </div>
      </form>
      <p class="hint">The API filters deliveries by subscription, status and event; newest first.</p>
      <ErrorAlert message={list.error} />
      {list.loading && list.items.length === 0 ? <Loading what="deliveries" /> : null}
      {!list.loading && !list.error && list.items.length === 0 ? <p>No deliveries match.</p> : null}
      {list.items.length > 0 ? <DeliveriesTable deliveries={list.items} caption="Deliveries, newest first" /> : null}
      <LoadMore hasMore={list.hasMore} loading={list.loading} onClick={list.loadMore} />
    </>
  );
}
