// The package's public surface (`import { HeraldClient } from 'herald'`): the signing client integrators call the
// API with, the operators' admin client, and the receiver helper (also alone as `herald/receiver`).
export {
  HeraldClient,
  type Credential,
  type HeraldClientOptions,
  type RequestOptions,
  type CreateSubscriptionInput,
  type Subscription,
  type SubscriptionKey,
  type SubscriptionPage,
  type SubscriptionStatus,
  type UpdateSubscriptionInput,
  type Delivery,
  type DeliveryAttempt,
  type DeliveryFilters,
  type DeliveryPage,
  type DeliveryWithAttempts,
  type TestDeliveryResponse,
  type SubscriptionStats,
} from './client/herald-client.js';
export type { EventFilters, EventHistoryItem, EventPage, PublishEventInput } from './client/events.js';
export { HeraldAdminClient, type Integrator, type IntegratorKey } from './client/admin-client.js';
export { HeraldApiError, type QueryValue } from './client/http.js';
export { requestSigningInput, signRequest } from './crypto/request-signature.js';
export {
  heraldEventTypes,
  historyEventTypes,
  lifecycleEventTypes,
  providers,
  subscribableEventTypes,
  SUBSCRIPTION_PAUSED_TYPE,
  TEST_EVENT_TYPE,
  type HeraldEventType,
  type HistoryEventType,
  type LifecycleEventType,
  type NameableEventType,
  type Provider,
  type SpecHistoryEventType,
  type SubscribableEventType,
} from './domain/event-types.js';
export * from './receiver/index.js';
