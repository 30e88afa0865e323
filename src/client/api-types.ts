// The API's types a client's caller names: each from the zod schema that defines it (src/api/schemas).
export type { DeliverySummary, RecoverInput, RecoveryCampaign } from '../api/schemas/campaigns.js';
export type {
  CreateSubscriptionInput,
  Subscription,
  SubscriptionKey,
  SubscriptionOrdering,
  SubscriptionPage,
  SubscriptionStatus,
  UpdateSubscriptionInput,
} from '../api/schemas/subscriptions.js';
export type {
  AttemptPage,
  Delivery,
  DeliveryAttempt,
  DeliveryFilters,
  DeliveryPage,
  DeliveryWithAttempts,
  TestDeliveryResponse,
} from '../api/schemas/deliveries.js';
export type { SubscriptionStats } from '../api/schemas/stats.js';
