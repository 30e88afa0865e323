import type { JSX } from 'preact';
import { useId, useState } from 'preact/hooks';
import { HISTORY_EVENT_TYPES } from '../event-types';
import { CreatedRange } from '../components/created-range';
import { SelectField } from '../components/select-field';
import { isUuid } from '../lib/format';

/** The query parameters of GET /v1/query/events (cursor aside). */
export interface EventFilterValues {
  eventType: string;
  createdAfter: string;
  createdBefore: string;
  accountId: string;
  userId: string;
  transactionId: string;
  limit: string;
}

const NAMES = ['eventType', 'createdAfter', 'createdBefore', 'accountId', 'userId', 'transactionId', 'limit'] as const;
const IDS = [
  ['accountId', 'Account id'],
  ['userId', 'User id'],
  ['transactionId', 'Transaction id'],
] as const;

export const filtersFromSearch = (s: URLSearchParams): EventFilterValues =>
  Object.fromEntries(NAMES.map((n) => [n, s.get(n) ?? ''])) as unknown as EventFilterValues;

export function EventFilters(props: {
  initial: EventFilterValues;
  onApply: (f: EventFilterValues) => void;
}): JSX.Element {
  const id = useId();
  const [f, setF] = useState(props.initial);
  const [errors, setErrors] = useState<Partial<Record<keyof EventFilterValues, string>>>({});
  const set = (name: keyof EventFilterValues) => (e: Event) =>
    setF({ ...f, [name]: (e.currentTarget as HTMLInputElement).value });

  const submit = (e: Event): void => {
    e.preventDefault();
    const next: typeof errors = {};
    for (const [name] of IDS) if (f[name].trim() && !isUuid(f[name])) next[name] = 'Enter a UUID.';
    setErrors(next);
    if (Object.keys(next).length === 0)
      props.onApply({
        ...f,
        accountId: f.accountId.trim(),
        userId: f.userId.trim(),
        transactionId: f.transactionId.trim(),
      });
  };
  const err = (name: keyof EventFilterValues): JSX.Element | null =>
    errors[name] ? (
      <p id={`${id}-${name}-error`} class="field-error">
        {errors[name]}
      </p>
    ) : null;

  return (
    <form class="filters" onSubmit={submit} aria-label="Event filters" noValidate>
      <SelectField
        id={`${id}-type`}
        label="Event type"
        any="Any type (webhook.test only when chosen)"
        options={HISTORY_EVENT_TYPES}
        value={f.eventType}
        onChange={(eventType) => setF({ ...f, eventType })}
      />
      <CreatedRange
        id={id}
        after={f.createdAfter}
        before={f.createdBefore}
        onChange={(name, iso) => setF({ ...f, [name]: iso })}
      />
      {IDS.map(([name, label]) => (
        <div class="field" key={name}>
          <label for={`${id}-${name}`}>{label}</label>
          <input
            id={`${id}-${name}`}
            value={f[name]}
            onInput={set(name)}
            aria-invalid={errors[name] ? true : undefined}
            aria-describedby={errors[name] ? `${id}-${name}-error` : undefined}
          />
          {err(name)}
        </div>
      ))}
      <div class="field">
        <label for={`${id}-limit`}>Page size</label>
        <select id={`${id}-limit`} value={f.limit} onChange={set('limit')}>
          <option value="">100 (default)</option>
          {['25', '50', '250'].map((n) => (
            <option key={n} value={n}>
              {n}
            </option>
          ))}
        </select>
      </div>
      <div class="actions">
        <button type="submit" class="button button-primary">
          Apply filters
        </button>
      </div>
    </form>
  );
}
