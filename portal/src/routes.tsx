import type { JSX } from 'preact';
import { SubscriptionsPage } from './pages/subscriptions-page';
import { DeliveriesPage } from './pages/deliveries-page';
import { DeliveryPage } from './pages/delivery-page';
import { EventsPage } from './pages/events-page';
import { EventPage } from './pages/event-page';
import { RecoveryPage } from './pages/recovery-page';
import { HealthPage } from './pages/health-page';
import { PageTitle } from './components/page-title';
import { Link, type Location } from './lib/router';

function NotFound(): JSX.Element {
  return (
    <>
      <PageTitle title="Page not found" />
      <p>
        There is no such page. Go to <Link to="/subscriptions">Subscriptions</Link>.
      </p>
    </>
  );
}

export function Routes({ location }: { location: Location }): JSX.Element {
  const { path, search } = location;
  if (path === '/' || path === '/subscriptions') return <SubscriptionsPage />;
  if (path === '/deliveries') return <DeliveriesPage key={search.toString()} search={search} />;
  if (path === '/events') return <EventsPage key={search.toString()} search={search} />;
  if (path === '/recovery') return <RecoveryPage />;
  if (path === '/health') return <HealthPage />;
  const detail = /^\/(deliveries|events)\/([^/]+)$/.exec(path);
  const id = detail?.[2] ? decodeURIComponent(detail[2]) : null;
  if (id !== null && detail?.[1] === 'deliveries') return <DeliveryPage key={id} id={id} />;
  if (id !== null && detail?.[1] === 'events') return <EventPage key={id} id={id} />;
  return <NotFound />;
}
