import type { ComponentChildren, JSX } from 'preact';
import { useEffect, useRef } from 'preact/hooks';
import { useTitle } from '../lib/hooks';

/** The page's h1 and document title; focused on navigation so screen readers announce the new page. */
export function PageTitle({ title, children }: { title: string; children?: ComponentChildren }): JSX.Element {
  useTitle(title);
  const ref = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    ref.current?.focus({ preventScroll: true });
  }, [title]);
  return (
    <div class="page-head">
      <h1 ref={ref} tabIndex={-1}>
        {title}
      </h1>
      {children}
    </div>
  );
}
