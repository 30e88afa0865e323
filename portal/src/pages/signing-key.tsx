import type { JSX } from 'preact';
import { CopyButton } from '../components/copy-button';
import { verificationSnippet } from '../lib/snippet';
import type { Subscription } from '../types';

/** The active public key, older keys still valid for earlier deliveries, and how to verify with them. */
export function SigningKey({ subscription }: { subscription: Subscription }): JSX.Element {
  const snippet = verificationSnippet(subscription.publicKey, subscription.keyId);
  const older = subscription.keys.filter((k) => k.status === 'inactive');
  return (
    <div class="key">
      <h3>Signing key</h3>
      <p class="muted">
        Key id <code>{subscription.keyId}</code>
      </p>
      <p class="key-value">
        <code data-testid="public-key">{subscription.publicKey}</code>
      </p>
      <CopyButton text={subscription.publicKey} label="Copy public key" />
      {older.length > 0 ? (
        <details>
          <summary>Earlier keys ({older.length})</summary>
          <ul class="plain">
            {older.map((k) => (
              <li key={k.keyId}>
                <code>{k.keyId}</code>: <code class="wrap">{k.publicKey}</code>
              </li>
            ))}
          </ul>
        </details>
      ) : null}
      <details>
        <summary>Verification snippet (Node)</summary>
        <p class="hint">
          Checks the X-Service-Webhook-* headers and the signature over{' '}
          <code>{'<delivery id>.<timestamp>.<raw body>'}</code>. The <code>herald/receiver</code> helper does the same.
        </p>
        <pre class="code" data-testid="verification-snippet">
          {snippet}
        </pre>
        <CopyButton text={snippet} label="Copy snippet" />
      </details>
    </div>
  );
}
