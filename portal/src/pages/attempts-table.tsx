import type { JSX } from 'preact';
import { Badge, TableWrap, Time } from '../components/feedback';
import { formatSeconds, humanize } from '../lib/format';
import type { Attempt, ResponseSummary } from '../types';

function Response({ summary, error }: { summary: ResponseSummary | null; error: string | null }): JSX.Element {
  if (!summary) return <span>{error ?? '—'}</span>;
  const headers = Object.entries(summary.headers);
  return (
    <details>
      <summary>HTTP {summary.status}</summary>
      {headers.length > 0 ? (
        <ul class="plain">
          {headers.map(([name, value]) => (
            <li key={name}>
              <code>
                {name}: {value}
              </code>
            </li>
          ))}
        </ul>
      ) : null}
      <pre class="code small">{summary.body || '(empty body)'}</pre>
      {summary.truncated ? <p class="hint">First 1 KiB only.</p> : null}
    </details>
  );
}

function SignedHeaders({ attempt }: { attempt: Attempt }): JSX.Element {
  return (
    <details>
      <summary>Signed headers</summary>
      <ul class="plain">
        <li>
          <code>X-Service-Webhook-Delivery-Id: {attempt.deliveryId}</code>
        </li>
        <li>
          <code>X-Service-Webhook-Timestamp: {attempt.signedTimestamp}</code>
        </li>
        <li>
          <code>X-Service-Webhook-Key-Id: {attempt.signingKeyId}</code>
        </li>
        <li>
          <code>X-Service-Webhook-Algorithm: ECDSA_P256_SHA256</code>
        </li>
      </ul>
      <p class="hint">
        Signed at <Time iso={attempt.signedAt} />. The API does not return the signature itself.
      </p>
    </details>
  );
}

export function AttemptsTable({ attempts }: { attempts: Attempt[] }): JSX.Element {
  return (
    <TableWrap label="Attempts">
      <table class="table" data-testid="attempts">
        <caption class="visually-hidden">Attempts, oldest first</caption>
        <thead>
          <tr>
            <th scope="col">Attempt</th>
            <th scope="col">Actor</th>
            <th scope="col">Outcome</th>
            <th scope="col">Status code</th>
            <th scope="col">Latency</th>
            <th scope="col">Time</th>
            <th scope="col">Response</th>
            <th scope="col">Next attempt after</th>
            <th scope="col">Signature</th>
          </tr>
        </thead>
        <tbody>
          {attempts.map((a) => (
            <tr key={a.id}>
              <th scope="row" class="num">
                {a.attemptNumber}
              </th>
              <td>{a.actor}</td>
              <td>
                <Badge kind={a.outcome === 'succeeded' ? 'succeeded' : 'failed'}>{humanize(a.outcome)}</Badge>
              </td>
              <td class="num">{a.statusCode ?? '—'}</td>
              <td class="num">{a.latencyMs} ms</td>
              <td>
                <Time iso={a.createdAt} />
                {a.address ? <div class="muted">to {a.address}</div> : null}
              </td>
              <td>
                <Response summary={a.responseSummary} error={a.error} />
              </td>
              <td>
                {formatSeconds(a.retryInSeconds)}
                {a.retryAfterSeconds !== null ? (
                  <div class="muted">Retry-After: {formatSeconds(a.retryAfterSeconds)}</div>
                ) : null}
              </td>
              <td>
                <SignedHeaders attempt={a} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableWrap>
  );
}
