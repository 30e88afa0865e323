import type { JSX } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { apiDelete, apiPost } from '../api';
import { Badge, ErrorAlert, StatusLine, Time } from '../components/feedback';
import { ConfirmDialog } from '../components/confirm-dialog';
import { useCanManage } from '../components/session-context';
import { useAction } from '../lib/hooks';
import { humanize } from '../lib/format';
import { Link } from '../lib/router';
import { SubscriptionForm } from './subscription-form';
import { SigningKey } from './signing-key';
import { TestSend } from './test-send';
import type { Subscription } from '../types';

interface Props {
  subscription: Subscription;
  onDeleted: () => void;
}

export function SubscriptionCard({ subscription, onDeleted }: Props): JSX.Element {
  const canManage = useCanManage();
  const [sub, setSub] = useState(subscription);
  const [editing, setEditing] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const [notice, setNotice] = useState('');
  const action = useAction();
  useEffect(() => setSub(subscription), [subscription]);

  const base = `/v1/webhooks/subscriptions/${sub.id}`;
  const post = (suffix: string, done: string): void =>
    action.run(async () => {
      setNotice('');
      setSub(await apiPost<Subscription>(`${base}/${suffix}`));
      setNotice(done);
    });
  const remove = (): void =>
    action.run(async () => {
      await apiDelete(base);
      onDeleted();
    });
  const headingId = `sub-${sub.id}`;

  return (
    <article class="card" aria-labelledby={headingId} data-testid={`subscription-${sub.id}`}>
      <h2 id={headingId} class="card-title">
        <span class="wrap">{sub.url}</span>
      </h2>
      <dl class="facts">
        <dt>Status</dt>
        <dd>
          <Badge kind={sub.status}>{sub.status}</Badge>
          {sub.pausedReason ? ` (${humanize(sub.pausedReason)}, since ` : null}
          {sub.pausedReason ? <Time iso={sub.pausedAt} /> : null}
          {sub.pausedReason ? ')' : null}
        </dd>
        <dt>Event types</dt>
        <dd>{sub.eventTypes.length === 0 ? 'All subscribable types' : sub.eventTypes.join(', ')}</dd>
        <dt>Delivery order</dt>
        <dd data-testid="ordering">{sub.ordering === 'fifo' ? 'In order (FIFO)' : 'Any order'}</dd>
        {sub.description ? (
          <>
            <dt>Description</dt>
            <dd>{sub.description}</dd>
          </>
        ) : null}
        <dt>Id</dt>
        <dd>
          <code>{sub.id}</code>
        </dd>
        <dt>Created</dt>
        <dd>
          <Time iso={sub.createdAt} />
        </dd>
      </dl>
      <p>
        <Link to={`/deliveries?subscriptionId=${sub.id}`}>Deliveries of this subscription</Link>
      </p>
      {canManage && editing ? (
        <SubscriptionForm
          initial={sub}
          onSaved={(saved) => {
            setSub(saved);
            setEditing(false);
            setNotice('Saved.');
          }}
          onCancel={() => setEditing(false)}
        />
      ) : null}
      {canManage && !editing ? (
        <div class="actions" role="group" aria-label="Subscription actions">
          <button type="button" class="button" onClick={() => setEditing(true)}>
            Edit
          </button>
          {sub.status === 'paused' ? (
            <button type="button" class="button" disabled={action.busy} onClick={() => post('resume', 'Resumed.')}>
              Resume
            </button>
          ) : null}
          {sub.status === 'enabled' ? (
            <button type="button" class="button" disabled={action.busy} onClick={() => post('pause', 'Paused.')}>
              Pause
            </button>
          ) : null}
          <button
            type="button"
            class="button"
            disabled={action.busy}
            onClick={() => post('rotate-key', 'Signing key rotated: new deliveries are signed with the new key.')}
          >
            Rotate key
          </button>
          <button type="button" class="button button-danger" disabled={action.busy} onClick={() => setConfirming(true)}>
            Delete
          </button>
        </div>
      ) : null}
      <StatusLine>{notice}</StatusLine>
      <ErrorAlert message={action.error} />
      {confirming ? (
        <ConfirmDialog
          title="Delete this subscription?"
          message={`${sub.url} stops receiving deliveries at once; its pending deliveries end as cancelled. Delivery history stays listed.`}
          confirmLabel="Yes, delete"
          onConfirm={remove}
          onClose={() => setConfirming(false)}
        />
      ) : null}
      <SigningKey subscription={sub} />
      {canManage && sub.status !== 'disabled' ? <TestSend subscriptionId={sub.id} /> : null}
    </article>
  );
}
