import type { JSX } from 'preact';
import { useState } from 'preact/hooks';
import { apiGetWithText } from '../api';
import { ErrorAlert, Loading, LoadMore, TableWrap, Time } from '../components/feedback';
import { PageTitle } from '../components/page-title';
import { rememberEvents } from '../lib/event-cache';
import { usePaged } from '../lib/hooks';
import { rawEventData } from '../lib/json-raw';
import { Link, replaceSearch } from '../lib/router';
import { EventFilters, filtersFromSearch, type EventFilterValues } from './event-filters';
import type { EventItem, EventPage } from '../types';

export function EventsPage({ search }: { search: URLSearchParams }): JSX.Element {
  const [filters, setFilters] = useState<EventFilterValues>(() => filtersFromSearch(search));
  const list = usePaged<EventItem>(
    async (cursor) => {
      const { data, text } = await apiGetWithText<EventPage>('/v1/query/events', { ...filters, cursor });
      rememberEvents(data.events, rawEventData(text));
      return { items: data.events, next: data.nextCursor };
    },
    [JSON.stringify(filters)],
  );
  const apply = (next: EventFilterValues): void => {
    setFilters(next);
    replaceSearch(new URLSearchParams(Object.entries(next).filter(([, v]) => v !== '')));
  };
  return (
    <>
      <PageTitle title="Events" />
      <EventFilters initial={filters} onApply={apply} />
      <ErrorAlert message={list.error} />
      {list.loading && list.items.length === 0 ? <Loading what="events" /> : null}
      {!list.loading && !list.error && list.items.length === 0 ? (
        <p>No events on this page.{list.hasMore ? ' Later pages may hold some: load more.' : ''}</p>
      ) : null}
      {list.items.length > 0 ? (
        <TableWrap label="Events, newest first">
          <table class="table">
            <caption class="visually-hidden">Events, newest first</caption>
            <thead>
              <tr>
                <th scope="col">Event</th>
                <th scope="col">Type</th>
                <th scope="col">Created</th>
                <th scope="col">Occurred</th>
                <th scope="col">Mode</th>
              </tr>
            </thead>
            <tbody>
              {list.items.map((e) => (
                <tr key={e.id}>
                  <th scope="row">
                    <Link to={`/events/${e.id}`} class="id-link">
                      {e.id}
                    </Link>
                  </th>
                  <td>
                    <code>{e.eventType}</code>
                  </td>
                  <td>
                    <Time iso={e.createdAt} />
                  </td>
                  <td>
                    <Time iso={e.occurredAt} />
                  </td>
                  <td>{e.livemode ? 'live' : 'test'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      ) : null}
      <LoadMore hasMore={list.hasMore} loading={list.loading} onClick={list.loadMore} />
    </>
  );
}
