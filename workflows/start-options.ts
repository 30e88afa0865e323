// What the API passes when it starts a delivery workflow; pure, so the API and the tests share it.
import type { SearchAttributePair } from '@temporalio/common';
import { searchAttributes } from './search-attributes.js';

export interface DeliverySearchContext {
  readonly subscriptionId: string;
  readonly eventType: string;
  readonly integratorId: string;
  /** Attempts already made: 0 for a new delivery, the delivery's attemptCount for a manual re-run. */
  readonly attemptCount?: number;
}

/** `typedSearchAttributes` of a delivery workflow's start options: who it is for, pending, attempts so far. */
export function initialSearchAttributes(context: DeliverySearchContext): SearchAttributePair[] {
  return [
    { key: searchAttributes.subscriptionId, value: context.subscriptionId },
    { key: searchAttributes.eventType, value: context.eventType },
    { key: searchAttributes.integratorId, value: context.integratorId },
    { key: searchAttributes.deliveryStatus, value: 'pending' },
    { key: searchAttributes.attemptCount, value: context.attemptCount ?? 0 },
  ];
}
