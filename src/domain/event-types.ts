// Event types exactly as the interface lists them (§6.1). The two lists differ on purpose and are kept as given.

/** Lifecycle events of the history enum, without `webhook.test`. */
export const lifecycleEventTypes = [
  'customer.created',
  'customer.updated',
  'customer.under_review',
  'customer.awaiting_associated_person_information',
  'customer.resubmission_requested',
  'customer.active',
  'customer.rejected',
  'customer.deleted',
  'transaction.created',
  'transaction.withdrawal_initiated',
  'transaction.waiting_for_funds',
  'transaction.payment_in_review',
  'transaction.funds_in_transfer',
  'transaction.funds_received',
  'transaction.processing',
  'transaction.completed',
  'transaction.simulation_failed',
  'transaction.reverted',
] as const;

export const TEST_EVENT_TYPE = 'webhook.test';

/**
 * In the subscribable list but not in the history enum (§6.1 rule 2: both lists as given). Subscriptions may name it,
 * publishing it is refused with a message saying so, so no delivery of it ever exists (docs/events.md).
 */
export const SUBSCRIBABLE_ONLY_TYPE = 'customer.awaiting_information';

/**
 * Herald's own operational event (not in the interface's lists; docs/subscriptions.md): a subscription was paused by
 * Herald (its endpoint answered 410 Gone, or kept failing). Listed with the integrator's events and delivered to its
 * other subscriptions to it (and to those subscribed to all types); never published through the admin API.
 */
export const SUBSCRIPTION_PAUSED_TYPE = 'webhook.subscription_paused';

/** The history enum: every type an event in the store can have. */
export const historyEventTypes = [TEST_EVENT_TYPE, ...lifecycleEventTypes, SUBSCRIPTION_PAUSED_TYPE] as const;

/** Types a subscription can name; `webhook.test` is sent by the test endpoint only. */
export const subscribableEventTypes = [
  'customer.created',
  'customer.updated',
  'customer.under_review',
  'customer.awaiting_information',
  'customer.awaiting_associated_person_information',
  'customer.resubmission_requested',
  'customer.active',
  'customer.rejected',
  'transaction.created',
  'transaction.waiting_for_funds',
  'transaction.payment_in_review',
  'transaction.funds_in_transfer',
  'transaction.funds_received',
  'transaction.processing',
  'transaction.completed',
  'transaction.simulation_failed',
  'transaction.reverted',
  SUBSCRIPTION_PAUSED_TYPE,
] as const;

export type LifecycleEventType = (typeof lifecycleEventTypes)[number];
export type HistoryEventType = (typeof historyEventTypes)[number];
export type SubscribableEventType = (typeof subscribableEventTypes)[number];

/** §2.3 provider enum. */
export const providers = ['service', 'kyc_provider', 'transfer_provider', 'onchain'] as const;
export type Provider = (typeof providers)[number];

const subscribable: ReadonlySet<string> = new Set(subscribableEventTypes);
export const isSubscribable = (type: string): type is SubscribableEventType => subscribable.has(type);
