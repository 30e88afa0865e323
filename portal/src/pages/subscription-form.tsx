import type { JSX } from 'preact';
import { useId, useState } from 'preact/hooks';
import { ApiError, apiPatch, apiPost, messageOf } from '../api';
import { ErrorAlert } from '../components/feedback';
import { EventTypePicker } from './event-type-picker';
import type { Subscription, SubscriptionOrdering } from '../types';

interface Props {
  /** Absent: create. */
  initial?: Subscription;
  onSaved: (subscription: Subscription) => void;
  onCancel?: () => void;
}

type Errors = { url?: string; eventTypes?: string; description?: string; ordering?: string; form?: string };

const sameSet = (a: string[], b: string[]): boolean => a.length === b.length && a.every((x) => b.includes(x));

export function SubscriptionForm({ initial, onSaved, onCancel }: Props): JSX.Element {
  const id = useId();
  const [url, setUrl] = useState(initial?.url ?? '');
  const [description, setDescription] = useState(initial?.description ?? '');
  const [eventTypes, setEventTypes] = useState<string[]>(initial?.eventTypes ?? []);
  const [disabled, setDisabled] = useState(initial?.status === 'disabled');
  const [ordering, setOrdering] = useState<SubscriptionOrdering>(initial?.ordering ?? 'none');
  const [errors, setErrors] = useState<Errors>({});
  const [busy, setBusy] = useState(false);

  const body = (): Record<string, unknown> => {
    if (!initial)
      return {
        url: url.trim(),
        eventTypes,
        ordering,
        ...(description.trim() ? { description: description.trim() } : {}),
      };
    const patch: Record<string, unknown> = {};
    if (url.trim() !== initial.url) patch.url = url.trim();
    if (!sameSet(eventTypes, initial.eventTypes)) patch.eventTypes = eventTypes;
    if ((description.trim() || null) !== initial.description) patch.description = description.trim() || null;
    if (ordering !== initial.ordering) patch.ordering = ordering;
    if (initial.status !== 'paused' && disabled !== (initial.status === 'disabled'))
      patch.status = disabled ? 'disabled' : 'enabled';
    return patch;
  };

  const submit = (e: Event): void => {
    e.preventDefault();
    if (!url.trim()) return setErrors({ url: 'Enter the callback URL (https://…).' });
    const payload = body();
    if (initial && Object.keys(payload).length === 0) return setErrors({ form: 'Nothing changed: nothing to save.' });
    setBusy(true);
    setErrors({});
    const path = initial ? `/v1/webhooks/subscriptions/${initial.id}` : '/v1/webhooks/subscriptions';
    const call = initial ? apiPatch<Subscription>(path, payload) : apiPost<Subscription>(path, payload);
    call.then(
      (saved) => {
        setBusy(false);
        if (!initial) {
          setUrl('');
          setDescription('');
          setEventTypes([]);
          setOrdering('none');
        }
        onSaved(saved);
      },
      (err: unknown) => {
        setBusy(false);
        const field = err instanceof ApiError ? err.field : null;
        const message = messageOf(err);
        if (field === 'url' || field === 'eventTypes' || field === 'description' || field === 'ordering')
          setErrors({ [field]: message });
        else setErrors({ form: message });
      },
    );
  };

  const describedBy = (name: string, hint: boolean, error: string | undefined): string | undefined =>
    [hint ? `${id}-${name}-hint` : '', error ? `${id}-${name}-error` : ''].filter(Boolean).join(' ') || undefined;

  return (
    <form class="form" onSubmit={submit} noValidate aria-label={initial ? 'Edit subscription' : 'New subscription'}>
      <div class="field">
        <label for={`${id}-url`}>Callback URL</label>
        <p id={`${id}-url-hint`} class="hint">
          A public HTTPS URL, e.g. https://hooks.example.com/herald
        </p>
        <input
          id={`${id}-url`}
          name="url"
          type="url"
          inputMode="url"
          autoComplete="url"
          required
          value={url}
          onInput={(e) => setUrl(e.currentTarget.value)}
          aria-invalid={errors.url ? true : undefined}
          aria-describedby={describedBy('url', true, errors.url)}
        />
        {errors.url ? (
          <p id={`${id}-url-error`} class="field-error" data-testid="url-error">
            {errors.url}
          </p>
        ) : null}
      </div>
      <div class="field">
        <label for={`${id}-description`}>Description (optional)</label>
        <input
          id={`${id}-description`}
          name="description"
          maxLength={256}
          value={description}
          onInput={(e) => setDescription(e.currentTarget.value)}
          aria-invalid={errors.description ? true : undefined}
          aria-describedby={describedBy('description', false, errors.description)}
        />
        {errors.description ? (
          <p id={`${id}-description-error`} class="field-error">
            {errors.description}
          </p>
        ) : null}
      </div>
      <EventTypePicker selected={eventTypes} onChange={setEventTypes} error={errors.eventTypes ?? null} />
      <div class="field">
        <label for={`${id}-ordering`}>Delivery order</label>
        <p id={`${id}-ordering-hint`} class="hint">
          In order: each delivery waits until the previous one has succeeded or given up; one that fails after every
          retry pauses the subscription. A change applies to events from now on.
        </p>
        <select
          id={`${id}-ordering`}
          name="ordering"
          value={ordering}
          onChange={(e) => setOrdering(e.currentTarget.value as SubscriptionOrdering)}
          aria-invalid={errors.ordering ? true : undefined}
          aria-describedby={describedBy('ordering', true, errors.ordering)}
        >
          <option value="none">Any order (fastest)</option>
          <option value="fifo">In order (FIFO), one at a time</option>
        </select>
        {errors.ordering ? (
          <p id={`${id}-ordering-error`} class="field-error">
            {errors.ordering}
          </p>
        ) : null}
      </div>
      {initial && initial.status !== 'paused' ? (
        <label class="check">
          <input type="checkbox" checked={disabled} onChange={(e) => setDisabled(e.currentTarget.checked)} />
          Disabled (receives no new deliveries; scheduled attempts end as cancelled)
        </label>
      ) : null}
      <ErrorAlert message={errors.form} />
      <div class="actions">
        <button type="submit" class="button button-primary" disabled={busy}>
          {initial ? 'Save' : 'Create subscription'}
        </button>
        {onCancel ? (
          <button type="button" class="button" onClick={onCancel}>
            Cancel edit
          </button>
        ) : null}
      </div>
    </form>
  );
}
