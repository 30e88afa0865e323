import { defineSearchAttributeKey } from '@temporalio/common';

// Custom search attributes that let an operator filter deliveries in the Temporal UI. A delivery held by its paused
// subscription shows HeraldDeliveryStatus = "held" while it waits (`HeraldSubscriptionId = '…' AND
// HeraldDeliveryStatus = 'held'`), "pending" again once released.
// `npm run dev` and the test bed register each one with the dev server.
export const searchAttributes = {
  deliveryStatus: defineSearchAttributeKey('HeraldDeliveryStatus', 'KEYWORD'),
  subscriptionId: defineSearchAttributeKey('HeraldSubscriptionId', 'KEYWORD'),
  eventType: defineSearchAttributeKey('HeraldEventType', 'KEYWORD'),
  integratorId: defineSearchAttributeKey('HeraldIntegratorId', 'KEYWORD'),
  attemptCount: defineSearchAttributeKey('HeraldAttemptCount', 'INT'),
} as const;

/** `Name=Type` pairs as `temporal server start-dev --search-attribute` takes them. */
export const searchAttributeFlags: readonly string[] = [
  'HeraldDeliveryStatus=Keyword',
  'HeraldSubscriptionId=Keyword',
  'HeraldEventType=Keyword',
  'HeraldIntegratorId=Keyword',
  'HeraldAttemptCount=Int',
];
