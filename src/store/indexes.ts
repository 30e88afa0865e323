import type { Db, IndexDescription } from 'mongodb';

/**
 * Every index Herald needs, declared in one place and created at start-up.
 * Each listing query is covered Equality → Sort → Range; uniqueness carries idempotency (no transactions).
 */
export const indexes: Readonly<Record<string, readonly IndexDescription[]>> = {
  integrator_keys: [
    { key: { publicKey: 1 }, name: 'publicKey_unique', unique: true },
    { key: { integratorId: 1, createdAt: 1 }, name: 'integrator_createdAt' },
  ],
  events: [
    // GET /v1/query/events: one index per filter shape (Equality → Sort → Range on createdAt).
    { key: { integratorId: 1, createdAt: -1, _id: -1 }, name: 'integrator_newest' },
    { key: { integratorId: 1, accountId: 1, createdAt: -1, _id: -1 }, name: 'integrator_account_newest' },
    { key: { integratorId: 1, userId: 1, createdAt: -1, _id: -1 }, name: 'integrator_user_newest' },
    { key: { integratorId: 1, transactionId: 1, createdAt: -1, _id: -1 }, name: 'integrator_transaction_newest' },
    { key: { integratorId: 1, eventType: 1, createdAt: -1, _id: -1 }, name: 'integrator_type_newest' },
    // The fan-out sweeper: events whose hand-off did not complete.
    { key: { fanoutAt: 1, createdAt: 1 }, name: 'fanout_pending' },
  ],
  subscriptions: [
    // GET /v1/webhooks/subscriptions (live ones, optionally by status; Equality → Sort); the fan-out's match.
    { key: { integratorId: 1, deletedAt: 1, createdAt: -1, _id: -1 }, name: 'integrator_live_newest' },
    {
      key: { integratorId: 1, deletedAt: 1, status: 1, createdAt: -1, _id: -1 },
      name: 'integrator_live_status_newest',
    },
  ],
  signing_keys: [{ key: { subscriptionId: 1, createdAt: 1 }, name: 'subscription_createdAt' }],
  deliveries: [
    { key: { eventId: 1, subscriptionId: 1 }, name: 'event_subscription_unique', unique: true },
    // GET /v1/webhooks/deliveries: one index per filter (Equality → Sort).
    { key: { integratorId: 1, createdAt: -1, _id: -1 }, name: 'integrator_newest' },
    { key: { integratorId: 1, subscriptionId: 1, createdAt: -1, _id: -1 }, name: 'integrator_subscription_newest' },
    { key: { integratorId: 1, eventId: 1, createdAt: -1, _id: -1 }, name: 'integrator_event_newest' },
    { key: { integratorId: 1, status: 1, createdAt: -1, _id: -1 }, name: 'integrator_status_newest' },
    // DELETE of a subscription cancels its pending deliveries.
    { key: { subscriptionId: 1, status: 1 }, name: 'subscription_status' },
    // The worker's backlog gauges (src/telemetry/backlog.ts): pending deliveries, and those past their due time.
    { key: { status: 1, nextAttemptAt: 1 }, name: 'status_nextAttemptAt' },
  ],
  attempts: [{ key: { deliveryId: 1, attemptNumber: 1 }, name: 'delivery_attempt_unique', unique: true }],
};

/**
 * Creates the indexes that are missing, one per call. Idempotent: the API and the worker both run it at start-up.
 * (FerretDB v1.24 drops the connection when one createIndexes call names two or more indexes that all exist.)
 */
export async function ensureIndexes(db: Db): Promise<void> {
  for (const [name, specs] of Object.entries(indexes)) {
    const collection = db.collection(name);
    const existing = new Set(
      await collection
        .listIndexes()
        .map((i: { name?: string }) => i.name)
        .toArray()
        .catch(() => []),
    );
    for (const spec of specs) if (!existing.has(spec.name)) await collection.createIndexes([spec]);
  }
}
