import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { messageOf } from '../api';

export interface Async<T> {
  data: T | undefined;
  error: string | null;
  loading: boolean;
  reload: () => void;
}

/** Loads once per change of deps; a stale answer (deps changed meanwhile) is dropped. */
export function useAsync<T>(load: () => Promise<T>, deps: readonly unknown[]): Async<T> {
  const [state, setState] = useState<{ data: T | undefined; error: string | null; loading: boolean }>({
    data: undefined,
    error: null,
    loading: true,
  });
  const [version, setVersion] = useState(0);
  useEffect(() => {
    let alive = true;
    setState((s) => ({ ...s, loading: true, error: null }));
    load().then(
      (data) => alive && setState({ data, error: null, loading: false }),
      (err: unknown) => alive && setState((s) => ({ ...s, error: messageOf(err), loading: false })),
    );
    return () => {
      alive = false;
    };
  }, [...deps, version]);
  const reload = useCallback(() => setVersion((v) => v + 1), []);
  return { ...state, reload };
}

export interface Paged<T> {
  items: T[];
  hasMore: boolean;
  loading: boolean;
  error: string | null;
  loadMore: () => void;
  reload: () => void;
}

/** A keyset-paged listing: the first page on each change of deps, then "Load more" with the cursor. */
export function usePaged<T>(
  fetchPage: (cursor: string | null) => Promise<{ items: T[]; next: string | null }>,
  deps: readonly unknown[],
): Paged<T> {
  const [items, setItems] = useState<T[]>([]);
  const [next, setNext] = useState<string | null>(null);
  const [loading, setLoading] = useState(true);
  const [error, setError] = useState<string | null>(null);
  const [version, setVersion] = useState(0);
  const generation = useRef(0);

  const fetchInto = (cursor: string | null, append: boolean): void => {
    const mine = generation.current;
    setLoading(true);
    setError(null);
    fetchPage(cursor).then(
      (page) => {
        if (mine !== generation.current) return;
        setItems((prev) => (append ? [...prev, ...page.items] : page.items));
        setNext(page.next);
        setLoading(false);
      },
      (err: unknown) => {
        if (mine !== generation.current) return;
        setError(messageOf(err));
        setLoading(false);
      },
    );
  };

  useEffect(() => {
    generation.current += 1;
    setItems([]);
    setNext(null);
    fetchInto(null, false);
  }, [...deps, version]);

  return {
    items,
    hasMore: next !== null,
    loading,
    error,
    loadMore: () => next !== null && fetchInto(next, true),
    reload: () => setVersion((v) => v + 1),
  };
}

export interface Action {
  busy: boolean;
  error: string | null;
  run: (fn: () => Promise<void>) => void;
  clearError: () => void;
}

/** One write at a time, its error kept for an alert. */
export function useAction(): Action {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const run = (fn: () => Promise<void>): void => {
    setBusy(true);
    setError(null);
    fn().then(
      () => setBusy(false),
      (err: unknown) => {
        setError(messageOf(err));
        setBusy(false);
      },
    );
  };
  return { busy, error, run, clearError: () => setError(null) };
}

export function useTitle(title: string): void {
  useEffect(() => {
    document.title = `${title} · Herald integrator portal`;
  }, [title]);
}
