import type { JSX } from 'preact';
import { Badge, TableWrap, Time } from '../components/feedback';
import { humanize } from '../lib/format';
import { Link } from '../lib/router';
import type { Delivery } from '../types';

function waiting(d: Delivery): JSX.Element | string {
  if (d.status !== 'pending') return humanize(d.terminalReason);
  return (
    <>
      {d.waitReason ? `${humanize(d.waitReason)}; ` : ''}
      {d.nextAttemptAt ? (
        <>
          next <Time iso={d.nextAttemptAt} />
        </>
      ) : (
        'attempt under way'
      )}
    </>
  );
}

export function DeliveriesTable({ deliveries, caption }: { deliveries: Delivery[]; caption: string }): JSX.Element {
  return (
    <TableWrap label={caption}>
      <table class="table">
        <caption class="visually-hidden">{caption}</caption>
        <thead>
          <tr>
            <th scope="col">Delivery</th>
            <th scope="col">Created</th>
            <th scope="col">Event type</th>
            <th scope="col">Status</th>
            <th scope="col">Attempts</th>
            <th scope="col">Last response</th>
            <th scope="col">Next attempt / reason</th>
          </tr>
        </thead>
        <tbody>
          {deliveries.map((d) => (
            <tr key={d.id}>
              <th scope="row">
                <Link to={`/deliveries/${d.id}`} class="id-link">
                  {d.id}
                </Link>
              </th>
              <td>
                <Time iso={d.createdAt} />
              </td>
              <td>
                <code>{d.eventType}</code>
              </td>
              <td>
                <Badge kind={d.status}>{d.status}</Badge>
                {d.held ? ' held' : ''}
              </td>
              <td class="num">{d.attemptCount}</td>
              <td>{d.lastResponseSummary ? `HTTP ${d.lastResponseSummary.status}` : '—'}</td>
              <td>{waiting(d)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableWrap>
  );
}
