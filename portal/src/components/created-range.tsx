import type { JSX } from 'preact';
import { isoToLocalInput, localInputToIso } from '../lib/format';

/** The two exclusive bounds on createdAt a listing takes, edited in local time and kept as ISO strings. */
export function CreatedRange(props: {
  id: string;
  after: string;
  before: string;
  onChange: (name: 'createdAfter' | 'createdBefore', iso: string) => void;
}): JSX.Element {
  const field = (name: 'createdAfter' | 'createdBefore', label: string, value: string) => (
    <div class="field">
      <label for={`${props.id}-${name}`}>{label} (local time)</label>
      <input
        id={`${props.id}-${name}`}
        type="datetime-local"
        value={value ? isoToLocalInput(value) : ''}
        onChange={(e) => props.onChange(name, localInputToIso(e.currentTarget.value))}
      />
    </div>
  );
  return (
    <>
      {field('createdAfter', 'Created after', props.after)}
      {field('createdBefore', 'Created before', props.before)}
    </>
  );
}
