import type { JSX } from 'preact';
import { useState } from 'preact/hooks';
import { copyText } from '../lib/clipboard';
import { messageOf } from '../api';

/** A button that copies text, and says whether it did (politely, next to it). */
export function CopyButton({ text, label }: { text: string; label: string }): JSX.Element {
  const [result, setResult] = useState('');
  const copy = (): void => {
    copyText(text).then(
      () => setResult('Copied.'),
      (err: unknown) => setResult(messageOf(err)),
    );
  };
  return (
    <span class="copy">
      <button type="button" class="button button-small" onClick={copy}>
        {label}
      </button>
      <span class="muted" role="status">
        {result}
      </span>
    </span>
  );
}
