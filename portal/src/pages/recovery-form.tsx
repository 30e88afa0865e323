import type { JSX } from 'preact';
import { useId, useState } from 'preact/hooks';
import { ApiError, apiPost, messageOf } from '../api';
import { ErrorAlert } from '../components/feedback';
import { localInputToIso } from '../lib/format';
import type { Subscription, RecoveryCampaign } from '../types';

type Field = 'subscriptionId' | 'since' | 'until' | 'statuses' | 'ratePerSecond';
type Errors = Partial<Record<Field | 'form', string>>;

interface Props {
  subscriptions: Subscription[];
  onStarted: (campaign: RecoveryCampaign) => void;
}

export function RecoveryForm({ subscriptions, onStarted }: Props): JSX.Element {
  const id = useId();
  const [subscriptionId, setSubscriptionId] = useState('');
  const [since, setSince] = useState('');
  const [until, setUntil] = useState('');
  const [statuses, setStatuses] = useState<('failed' | 'cancelled')[]>(['failed']);
  const [rate, setRate] = useState('5');
  const [errors, setErrors] = useState<Errors>({});
  const [busy, setBusy] = useState(false);

  const submit = (e: Event): void => {
    e.preventDefault();
    const next: Errors = {};
    if (!subscriptionId) next.subscriptionId = 'Choose a subscription.';
    if (!since) next.since = 'Enter the start of the window.';
    if (statuses.length === 0) next.statuses = 'Choose at least one status.';
    const rateNumber = Number(rate);
    if (!(rateNumber >= 0.1 && rateNumber <= 100)) next.ratePerSecond = 'Between 0.1 and 100 per second.';
    setErrors(next);
    if (Object.keys(next).length > 0) return;
    setBusy(true);
    const body = {
      since: localInputToIso(since),
      ...(until ? { until: localInputToIso(until) } : {}),
      statuses,
      ratePerSecond: rateNumber,
    };
    apiPost<RecoveryCampaign>(`/v1/webhooks/subscriptions/${subscriptionId}/recover`, body).then(
      (campaign) => {
        setBusy(false);
        onStarted(campaign);
      },
      (err: unknown) => {
        setBusy(false);
        const field = err instanceof ApiError ? err.field : null;
        const key: Field | 'form' =
          field === 'since' || field === 'until' || field === 'statuses' || field === 'ratePerSecond'
            ? field
            : err instanceof ApiError && err.code === 'invalid_window'
              ? 'until'
              : err instanceof ApiError && err.code === 'outside_retention'
                ? 'since'
                : 'form';
        setErrors({ [key]: messageOf(err) });
      },
    );
  };

  const fieldError = (name: Field): JSX.Element | null =>
    errors[name] ? (
      <p id={`${id}-${name}-error`} class="field-error">
        {errors[name]}
      </p>
    ) : null;
  const aria = (name: Field) => ({
    'aria-invalid': errors[name] ? true : undefined,
    'aria-describedby': errors[name] ? `${id}-${name}-error` : undefined,
  });
  const toggle = (s: 'failed' | 'cancelled', on: boolean): void =>
    setStatuses(on ? [...statuses.filter((x) => x !== s), s] : statuses.filter((x) => x !== s));

  return (
    <form class="form" onSubmit={submit} noValidate aria-label="Start a recovery campaign">
      <div class="field">
        <label for={`${id}-sub`}>Subscription</label>
        <select
          id={`${id}-sub`}
          value={subscriptionId}
          onChange={(e) => setSubscriptionId(e.currentTarget.value)}
          {...aria('subscriptionId')}
        >
          <option value="">Choose…</option>
          {subscriptions.map((s) => (
            <option key={s.id} value={s.id}>
              {s.url}
            </option>
          ))}
        </select>
        {fieldError('subscriptionId')}
      </div>
      <div class="field">
        <label for={`${id}-since`}>Since (local time)</label>
        <input
          id={`${id}-since`}
          type="datetime-local"
          value={since}
          onInput={(e) => setSince(e.currentTarget.value)}
          {...aria('since')}
        />
        {fieldError('since')}
      </div>
      <div class="field">
        <label for={`${id}-until`}>Until (local time, optional: now)</label>
        <input
          id={`${id}-until`}
          type="datetime-local"
          value={until}
          onInput={(e) => setUntil(e.currentTarget.value)}
          {...aria('until')}
        />
        {fieldError('until')}
      </div>
      <fieldset {...aria('statuses')}>
        <legend>Re-deliver deliveries that</legend>
        <label class="check">
          <input
            type="checkbox"
            checked={statuses.includes('failed')}
            onChange={(e) => toggle('failed', e.currentTarget.checked)}
          />
          failed
        </label>
        <label class="check">
          <input
            type="checkbox"
            checked={statuses.includes('cancelled')}
            onChange={(e) => toggle('cancelled', e.currentTarget.checked)}
          />
          were cancelled
        </label>
        {fieldError('statuses')}
      </fieldset>
      <div class="field">
        <label for={`${id}-rate`}>Re-deliveries per second</label>
        <input
          id={`${id}-rate`}
          type="number"
          min="0.1"
          max="100"
          step="0.1"
          value={rate}
          onInput={(e) => setRate(e.currentTarget.value)}
          {...aria('ratePerSecond')}
        />
        {fieldError('ratePerSecond')}
      </div>
      <ErrorAlert message={errors.form} />
      <div class="actions">
        <button type="submit" class="button button-primary" disabled={busy}>
          Start recovery
        </button>
      </div>
    </form>
  );
}
