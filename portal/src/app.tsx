import type { JSX } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { onSessionEnded, setCsrfToken } from './api';
import { closeSession, openSession, SessionFailure } from './session';
import { SessionContext } from './components/session-context';
import { EndedPage, FailedPage } from './components/ended-page';
import { TopNav } from './components/top-nav';
import { Routes } from './routes';
import { useLocation } from './lib/router';
import type { Session } from './types';

type State =
  { kind: 'opening' } | { kind: 'ended' } | { kind: 'failed'; message: string } | { kind: 'open'; session: Session };

// setTimeout holds at most 2^31 - 1 ms.
const MAX_TIMER_MS = 2_147_483_647;

export function App(): JSX.Element {
  const [state, setState] = useState<State>({ kind: 'opening' });
  const location = useLocation();

  useEffect(() => {
    onSessionEnded(() => {
      setCsrfToken(null);
      setState({ kind: 'ended' });
    });
    openSession().then(
      (session) => {
        setCsrfToken(session?.csrfToken ?? null);
        setState(session ? { kind: 'open', session } : { kind: 'ended' });
      },
      (err: unknown) =>
        setState({ kind: 'failed', message: err instanceof SessionFailure ? err.message : 'The portal failed.' }),
    );
  }, []);

  const expiresAt = state.kind === 'open' ? state.session.expiresAt : null;
  useEffect(() => {
    if (!expiresAt) return undefined;
    const ms = Math.min(Math.max(new Date(expiresAt).getTime() - Date.now(), 0), MAX_TIMER_MS);
    const timer = setTimeout(() => setState({ kind: 'ended' }), ms);
    return () => clearTimeout(timer);
  }, [expiresAt]);

  if (state.kind === 'opening') {
    return (
      <main id="main" class="ended">
        <h1>Herald integrator portal</h1>
        <p class="muted">Opening your session…</p>
      </main>
    );
  }
  if (state.kind === 'ended') return <EndedPage />;
  if (state.kind === 'failed') return <FailedPage message={state.message} />;

  const { session } = state;
  const signOut = (): void => {
    void closeSession(session.csrfToken).then(() => {
      setCsrfToken(null);
      setState({ kind: 'ended' });
    });
  };
  return (
    <SessionContext.Provider value={session}>
      <TopNav path={location.path} onSignOut={signOut} />
      <main id="main" class="content">
        <Routes location={location} />
      </main>
    </SessionContext.Provider>
  );
}
