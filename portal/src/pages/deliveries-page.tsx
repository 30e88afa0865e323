import type { JSX } from 'preact';
import { useId, useState } from 'preact/hooks';
import { apiGet } from '../api';
import { ErrorAlert, Loading, LoadMore } from '../components/feedback';
import { PageTitle } from '../components/page-title';
import { CreatedRange } from '../components/created-range';
import { SelectField } from '../components/select-field';
import { DELIVERY_STATUSES, HERALD_EVENT_TYPES, HISTORY_EVENT_TYPES } from '../event-types';
import { usePaged } from '../lib/hooks';
import { isUuid } from '../lib/format';
import { replaceSearch } from '../lib/router';
import { useSubscriptions } from '../lib/subscriptions';
import { DeliveriesTable } from './deliveries-table';
import type { Delivery, DeliveryPage } from '../types';

const NAMES = ['subscriptionId', 'status', 'eventType', 'createdAfter', 'createdBefore', 'eventId'] as const;
type Filters = Record<(typeof NAMES)[number], string>;

const fromSearch = (s: URLSearchParams): Filters =>
  Object.fromEntries(NAMES.map((n) => [n, s.get(n) ?? ''])) as Filters;
const DELIVERED_TYPES = [...HISTORY_EVENT_TYPES, ...HERALD_EVENT_TYPES];

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
    NAMES.map((n) => filters[n]),
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
        <SelectField
          id={`${id}-status`}
          label="Status"
          any="Any status"
          options={DELIVERY_STATUSES}
          value={draft.status}
          onChange={(status) => setDraft({ ...draft, status })}
        />
        <SelectField
          id={`${id}-type`}
          label="Event type"
          any="Any type"
          options={DELIVERED_TYPES}
          value={draft.eventType}
          onChange={(eventType) => setDraft({ ...draft, eventType })}
        />
        <CreatedRange
          id={id}
          after={draft.createdAfter}
          before={draft.createdBefore}
          onChange={(name, iso) => setDraft({ ...draft, [name]: iso })}
        />
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
      <p class="hint">Newest first; the time bounds are exclusive.</p>
      <ErrorAlert message={list.error} />
      {list.loading && list.items.length === 0 ? <Loading what="deliveries" /> : null}
      {!list.loading && !list.error && list.items.length === 0 ? <p>No deliveries match.</p> : null}
      {list.items.length > 0 ? <DeliveriesTable deliveries={list.items} caption="Deliveries, newest first" /> : null}
      <LoadMore hasMore={list.hasMore} loading={list.loading} onClick={list.loadMore} />
    </>
  );
}
