import type { ComponentChildren, JSX } from 'preact';

/** An error for the user: role="alert" so it is announced at once. */
export function ErrorAlert({ message }: { message: string | null | undefined }): JSX.Element | null {
  if (!message) return null;
  return (
    <p class="alert alert-error" role="alert">
      {message}
    </p>
  );
}

/** A polite status line (results of actions, "Copied"). */
export function StatusLine({ children, testId }: { children?: ComponentChildren; testId?: string }): JSX.Element {
  return (
    <p class="status-line" role="status" data-testid={testId}>
      {children}
    </p>
  );
}

export function Loading({ what }: { what: string }): JSX.Element {
  return <p class="muted">Loading {what}…</p>;
}

export function Badge({ kind, children }: { kind: string; children: ComponentChildren }): JSX.Element {
  return <span class={`badge badge-${kind}`}>{children}</span>;
}

export function LoadMore({
  hasMore,
  loading,
  onClick,
  label = 'Load more',
}: {
  hasMore: boolean;
  loading: boolean;
  onClick: () => void;
  label?: string;
}): JSX.Element | null {
  if (!hasMore) return null;
  return (
    <p>
      <button type="button" class="button" onClick={onClick} disabled={loading}>
        {label}
      </button>
    </p>
  );
}

export function Time({ iso }: { iso: string | null | undefined }): JSX.Element {
  if (!iso) return <span>—</span>;
  const d = new Date(iso);
  return <time dateTime={iso}>{Number.isNaN(d.getTime()) ? iso : d.toLocaleString()}</time>;
}

/** A horizontally scrollable table container, reachable by keyboard. */
export function TableWrap({ label, children }: { label: string; children: ComponentChildren }): JSX.Element {
  return (
    <div class="table-wrap" role="region" aria-label={`${label} (table)`} tabIndex={0}>
      {children}
    </div>
  );
}
