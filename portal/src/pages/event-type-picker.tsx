import type { JSX } from 'preact';
import { useId } from 'preact/hooks';
import { HERALD_EVENT_TYPES, SUBSCRIBABLE_EVENT_TYPES } from '../event-types';

interface Props {
  selected: string[];
  onChange: (selected: string[]) => void;
  error: string | null;
}

/** The event types multi-select, as checkboxes (a <select multiple> is hard to use by keyboard and on phones). */
export function EventTypePicker({ selected, onChange, error }: Props): JSX.Element {
  const id = useId();
  const toggle = (type: string, on: boolean): void =>
    onChange(on ? [...selected.filter((t) => t !== type), type] : selected.filter((t) => t !== type));
  const box = (type: string, note?: string): JSX.Element => (
    <li key={type}>
      <label class="check">
        <input
          type="checkbox"
          checked={selected.includes(type)}
          onChange={(e) => toggle(type, e.currentTarget.checked)}
        />
        <code>{type}</code>
        {note ? <span class="muted"> {note}</span> : null}
      </label>
    </li>
  );
  return (
    <fieldset
      class="event-types"
      aria-describedby={`${id}-hint${error ? ` ${id}-error` : ''}`}
      aria-invalid={error ? true : undefined}
    >
      <legend>Event types</legend>
      <p id={`${id}-hint`} class="hint">
        Leave every box unchecked to receive all subscribable types.
      </p>
      <ul class="check-grid">
        {SUBSCRIBABLE_EVENT_TYPES.map((t) => box(t))}
        {HERALD_EVENT_TYPES.map((t) => box(t, '(Herald: sent when Herald pauses this subscription)'))}
      </ul>
      {error ? (
        <p id={`${id}-error`} class="field-error">
          {error}
        </p>
      ) : null}
    </fieldset>
  );
}
