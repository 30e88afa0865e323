import { Fragment, type JSX } from 'preact';
import { useId, useState } from 'preact/hooks';
import { apiGet } from '../api';
import { ErrorAlert, Loading, LoadMore, Time } from '../components/feedback';
import { PageTitle } from '../components/page-title';
import { findEvent } from '../lib/find-event';
import { useAsync, usePaged } from '../lib/hooks';
import { DeliveriesTable } from './deliveries-table';
import type { Delivery, DeliveryPage, EventItem } from '../types';

function Facts({ event: e }: { event: EventItem }): JSX.Element {
  const rows: [string, string | null][] = [
    ['Account', e.accountId],
    ['User', e.userId],
    ['Entity', e.entityId],
    ['Beneficiary', e.beneficiaryId],
    ['Transaction', e.transactionId],
    ['Provider', e.provider],
    ['Provider event', e.providerEventId],
  ];
  return (
    <dl class="facts">
      <dt>Type</dt>
      <dd>
        <code>{e.eventType}</code>
      </dd>
      <dt>Occurred</dt>
      <dd>
        <Time iso={e.occurredAt} />
      </dd>
      <dt>Created</dt>
      <dd>
        <Time iso={e.createdAt} />
      </dd>
      <dt>Mode</dt>
      <dd>
        {e.livemode ? 'live' : 'test'}, payload version {e.payloadVersion}
      </dd>
      {rows
        .filter(([, v]) => v !== null)
        .map(([label, v]) => (
          <Fragment key={label}>
            <dt>{label}</dt>
            <dd>
              <code>{v}</code>
            </dd>
          </Fragment>
        ))}
    </dl>
  );
}

function Payload({ data, raw }: { data: unknown; raw: string | null }): JSX.Element {
  const id = useId();
  const [exact, setExact] = useState(false);
  return (
    <section aria-labelledby={`${id}-h`}>
      <h2 id={`${id}-h`}>Payload</h2>
      <label class="check">
        <input
          type="checkbox"
          checked={exact}
          disabled={raw === null}
          onChange={(e) => setExact(e.currentTarget.checked)}
        />
        Exact bytes
      </label>
      {raw === null ? <p class="hint">The exact text could not be read from the answer; shown parsed.</p> : null}
      <pre class="code" data-testid={exact ? 'payload-raw' : 'payload-pretty'} tabIndex={0}>
        {exact && raw !== null ? raw : JSON.stringify(data, null, 2)}
      </pre>
    </section>
  );
}

export function EventPage({ id }: { id: string }): JSX.Element {
  const found = useAsync(() => findEvent(id), [id]);
  const deliveries = usePaged<Delivery>(
    async (cursor) => {
      const page = await apiGet<DeliveryPage>('/v1/webhooks/deliveries', { eventId: id, cursor, limit: 50 });
      return { items: page.deliveries, next: page.nextCursor };
    },
    [id],
  );
  return (
    <>
      <PageTitle title={`Event ${id}`} />
      <ErrorAlert message={found.error} />
      {found.loading ? <Loading what="the event" /> : null}
      {!found.loading && !found.error && !found.data ? <p>No such event.</p> : null}
      {found.data ? <Facts event={found.data.event} /> : null}
      {found.data ? <Payload data={found.data.event.data} raw={found.data.raw} /> : null}
      <section aria-labelledby="event-deliveries">
        <h2 id="event-deliveries">Deliveries of this event</h2>
        <ErrorAlert message={deliveries.error} />
        {!deliveries.loading && !deliveries.error && deliveries.items.length === 0 ? <p>No deliveries.</p> : null}
        {deliveries.items.length > 0 ? (
          <DeliveriesTable deliveries={deliveries.items} caption="Deliveries of this event" />
        ) : null}
        <LoadMore hasMore={deliveries.hasMore} loading={deliveries.loading} onClick={deliveries.loadMore} />
      </section>
    </>
  );
}
