import type { JSX } from 'preact';
import { Badge, Time } from '../components/feedback';
import { humanize } from '../lib/format';
import { Link } from '../lib/router';
import type { Delivery } from '../types';

const WAIT_REASONS: Record<NonNullable<Delivery['waitReason']>, string> = {
  subscription_paused: 'held until the subscription is resumed',
  endpoint_unresponsive: 'the last requests to the endpoint timed out; it tries again when the endpoint answers',
  integrator_busy: 'your share of attempt slots is in use; it goes out shortly',
  fifo_turn: 'its subscription delivers in order; it goes out once the deliveries before it have ended',
};

export function DeliveryFacts({ delivery: d }: { delivery: Delivery }): JSX.Element {
  return (
    <dl class="facts" data-testid="delivery-facts">
      <dt>Status</dt>
      <dd>
        <Badge kind={d.status}>{d.status}</Badge>
        {d.held ? ' (held by its paused subscription)' : ''}
      </dd>
      {d.terminalReason ? (
        <>
          <dt>Reason</dt>
          <dd>{humanize(d.terminalReason)}</dd>
        </>
      ) : null}
      <dt>Event</dt>
      <dd>
        <code>{d.eventType}</code> <Link to={`/events/${d.eventId}`}>{d.eventId}</Link>
      </dd>
      <dt>Subscription</dt>
      <dd>
        <Link to={`/deliveries?subscriptionId=${d.subscriptionId}`}>{d.subscriptionId}</Link>
      </dd>
      <dt>Attempts</dt>
      <dd>{d.attemptCount}</dd>
      <dt>Created</dt>
      <dd>
        <Time iso={d.createdAt} />
      </dd>
      <dt>Updated</dt>
      <dd>
        <Time iso={d.updatedAt} />
      </dd>
      <dt>Next attempt</dt>
      <dd>
        <Time iso={d.nextAttemptAt} />
      </dd>
      <dt>Waiting because</dt>
      <dd data-testid="wait-reason">
        {d.waitReason ? `${humanize(d.waitReason)}: ${WAIT_REASONS[d.waitReason] ?? ''}` : 'not waiting'}
      </dd>
      <dt>Last response</dt>
      <dd>{d.lastResponseSummary ? `HTTP ${d.lastResponseSummary.status}` : '—'}</dd>
    </dl>
  );
}
