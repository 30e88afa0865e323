import type { JSX } from 'preact';
import { useState } from 'preact/hooks';
import { apiPost, messageOf } from '../api';
import { ErrorAlert } from '../components/feedback';
import { Link } from '../lib/router';
import { humanize } from '../lib/format';
import type { TestDeliveryResponse } from '../types';

/** POST …/test: one signed webhook.test delivery, answered once its first attempt has finished. */
export function TestSend({ subscriptionId }: { subscriptionId: string }): JSX.Element {
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<TestDeliveryResponse | null>(null);
  const [error, setError] = useState<string | null>(null);
  const send = (): void => {
    setBusy(true);
    setError(null);
    setResult(null);
    apiPost<TestDeliveryResponse>(`/v1/webhooks/subscriptions/${subscriptionId}/test`).then(
      (r) => {
        setResult(r);
        setBusy(false);
      },
      (err: unknown) => {
        setError(messageOf(err));
        setBusy(false);
      },
    );
  };
  const { attempt, delivery } = result ?? {};
  return (
    <div class="test-send">
      <button type="button" class="button" onClick={send} disabled={busy}>
        Send test
      </button>
      <div role="status" data-testid="test-result" class="test-result">
        {busy ? <span class="muted">Sending a test delivery…</span> : null}
        {attempt && delivery ? (
          <p>
            Test delivery {attempt.outcome === 'succeeded' ? 'succeeded' : 'did not succeed'}:{' '}
            {humanize(attempt.outcome)}
            {attempt.statusCode !== null ? `, HTTP ${attempt.statusCode}` : ''}, {attempt.latencyMs} ms
            {attempt.error ? ` (${attempt.error})` : ''}.{' '}
            <Link to={`/deliveries/${delivery.id}`}>View the test delivery</Link>
          </p>
        ) : null}
      </div>
      <ErrorAlert message={error} />
    </div>
  );
}
