// History-API routes under /portal/ (the server answers index.html for any /portal/... path that is not a file).
import type { ComponentChildren, JSX } from 'preact';
import { useEffect, useState } from 'preact/hooks';

export const BASE = '/portal';

export interface Location {
  path: string;
  search: URLSearchParams;
}

function current(): Location {
  const { pathname, search } = window.location;
  const inside = pathname.startsWith(BASE) ? pathname.slice(BASE.length) : pathname;
  const path = inside.replace(/\/+$/, '') || '/';
  return { path, search: new URLSearchParams(search) };
}

export function navigate(to: string, options: { replace?: boolean } = {}): void {
  const url = BASE + to;
  if (options.replace) history.replaceState(null, '', url);
  else history.pushState(null, '', url);
  window.dispatchEvent(new PopStateEvent('popstate'));
}

/** Changes the query string without a navigation (filters kept on reload). */
export function replaceSearch(query: URLSearchParams): void {
  const search = query.toString();
  history.replaceState(history.state, '', window.location.pathname + (search ? `?${search}` : ''));
}

export function useLocation(): Location {
  const [location, setLocation] = useState(current);
  useEffect(() => {
    const update = (): void => setLocation(current());
    window.addEventListener('popstate', update);
    return () => window.removeEventListener('popstate', update);
  }, []);
  return location;
}

interface LinkProps {
  to: string;
  children: ComponentChildren;
  class?: string;
  'aria-current'?: 'page';
}

export function Link({ to, children, ...rest }: LinkProps): JSX.Element {
  const onClick = (e: MouseEvent): void => {
    if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    e.preventDefault();
    navigate(to);
  };
  return (
    <a {...rest} href={BASE + to} onClick={onClick}>
      {children}
    </a>
  );
}
