// What the API passes when it starts a delivery workflow; pure, so the API and the tests share it.
import type { Priority, SearchAttributePair } from '@temporalio/common';
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

/**
 * The task-queue priority of every workflow Herald runs for a subscription (its deliveries, their recovery, probe and
 * release): one fairness key per subscription. Where the Temporal server has fairness turned on (it is off in
 * ops/temporal-dynamic-config.yaml: docs/temporal-cluster.md, "Task-queue fairness, off by default") the matching
 * service dispatches backlogged tasks round-robin across keys, so one endpoint's backlog cannot hold every worker slot
 * while other endpoints wait. Activities inherit it. Not part of the workflow's commands: every committed history
 * replays.
 */
export function subscriptionPriority(subscriptionId: string): Priority {
  return { fairnessKey: subscriptionId };
}
