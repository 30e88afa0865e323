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

/** The history enum of §6.1, exactly: every type `GET /v1/query/events` can list. */
export const historyEventTypes = [TEST_EVENT_TYPE, ...lifecycleEventTypes] as const;

/**
 * Herald's own operational event (not in the interface's lists; docs/subscriptions.md): a subscription was paused by
 * Herald (its endpoint answered 410 Gone, or kept failing). Herald's extension, kept beside the spec's enums, never
 * inside them: stored and delivered only to the integrator's other subscriptions that name it (a subscription to
 * "all subscribable types" does not get it, §6.2), never listed by `GET /v1/query/events`, never published through
 * the admin API.
 */
export const SUBSCRIPTION_PAUSED_TYPE = 'webhook.subscription_paused';

/** Herald's extensions to the event types: opt-in only, never listed with the integrator's events. */
export const heraldEventTypes = [SUBSCRIPTION_PAUSED_TYPE] as const;

/** The subscribable enum of §6.1, exactly; `webhook.test` is sent by the test endpoint only. */
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
] as const;

export type LifecycleEventType = (typeof lifecycleEventTypes)[number];
/** A type of the spec's history enum: what `GET /v1/query/events` lists and filters by. */
export type SpecHistoryEventType = (typeof historyEventTypes)[number];
export type SubscribableEventType = (typeof subscribableEventTypes)[number];
export type HeraldEventType = (typeof heraldEventTypes)[number];
/**
 * Every type a stored event (and its deliveries) can have: the spec's history enum and Herald's own types. The name
 * is older than the split (workflows/types.ts, replay-checked, refers to it).
 */
export type HistoryEventType = SpecHistoryEventType | HeraldEventType;
/** Every type a subscription can name: the spec's subscribable types and Herald's own. */
export type NameableEventType = SubscribableEventType | HeraldEventType;

/** §2.3 provider enum. */
export const providers = ['service', 'kyc_provider', 'transfer_provider', 'onchain'] as const;
export type Provider = (typeof providers)[number];

const subscribable: ReadonlySet<string> = new Set(subscribableEventTypes);
/** In the spec's subscribable enum: what "all subscribable types" (§6.2) means. */
export const isSubscribable = (type: string): type is SubscribableEventType => subscribable.has(type);

const herald: ReadonlySet<string> = new Set(heraldEventTypes);
export const isHeraldEventType = (type: string): type is HeraldEventType => herald.has(type);
