import type { JSX } from 'preact';
import { useTitle } from '../lib/hooks';

/** Shown on any 401 and after signing out: no other controls. */
export function EndedPage(): JSX.Element {
  useTitle('Session ended');
  return (
    <main id="main" class="ended">
      <h1>This portal session has ended. Ask for a new link from your platform.</h1>
      <p class="muted">Portal links work once and for a limited time. Close this tab when you are done.</p>
    </main>
  );
}

export function FailedPage({ message }: { message: string }): JSX.Element {
  useTitle('Portal unavailable');
  return (
    <main id="main" class="ended">
      <h1>The portal could not be opened</h1>
      <p role="alert">{message}</p>
      <p>
        <button type="button" class="button" onClick={() => window.location.reload()}>
          Try again
        </button>
      </p>
    </main>
  );
}
