import type { JSX } from 'preact';

/** A labelled filter select: "any" (the empty value) first, then each option as its own label. */
export function SelectField(props: {
  id: string;
  label: string;
  any: string;
  options: readonly string[];
  value: string;
  onChange: (value: string) => void;
}): JSX.Element {
  return (
    <div class="field">
      <label for={props.id}>{props.label}</label>
      <select id={props.id} value={props.value} onChange={(e) => props.onChange(e.currentTarget.value)}>
        <option value="">{props.any}</option>
        {props.options.map((o) => (
          <option key={o} value={o}>
            {o}
          </option>
        ))}
      </select>
    </div>
  );
}
