import type { JSX } from 'preact';
import { Link } from '../lib/router';
import { useSession } from './session-context';

const PAGES = [
  { to: '/subscriptions', label: 'Subscriptions' },
  { to: '/deliveries', label: 'Deliveries' },
  { to: '/events', label: 'Events' },
  { to: '/recovery', label: 'Recovery' },
  { to: '/health', label: 'Health' },
] as const;

function isCurrent(path: string, to: string): boolean {
  if (to === '/subscriptions' && path === '/') return true;
  return path === to || path.startsWith(`${to}/`);
}

export function TopNav({ path, onSignOut }: { path: string; onSignOut: () => void }): JSX.Element {
  const session = useSession();
  return (
    <header class="top">
      <a class="skip-link" href="#main">
        Skip to content
      </a>
      <div class="top-row">
        <p class="brand">Herald integrator portal</p>
        <div class="who">
          <span class="muted">Integrator</span> <code data-testid="integrator-id">{session.integratorId}</code>{' '}
          {session.scope === 'read' ? (
            <span class="badge badge-readonly" data-testid="scope">
              read-only
            </span>
          ) : (
            <span class="badge badge-manage" data-testid="scope">
              manage
            </span>
          )}
          <button type="button" class="button button-small" onClick={onSignOut}>
            Sign out
          </button>
        </div>
      </div>
      <nav aria-label="Main">
        <ul class="nav-list">
          {PAGES.map((p) => (
            <li key={p.to}>
              <Link to={p.to} aria-current={isCurrent(path, p.to) ? 'page' : undefined}>
                {p.label}
              </Link>
            </li>
          ))}
        </ul>
      </nav>
    </header>
  );
}
