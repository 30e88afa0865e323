import { MongoServerError, type Db, type IndexDescription } from 'mongodb';

/**
 * Every index Herald needs, declared in one place and created at start-up.
 * Each listing query is covered Equality → Sort → Range; uniqueness carries idempotency (no transactions).
 */
export const indexes: Readonly<Record<string, readonly IndexDescription[]>> = {
  integrator_keys: [
    { key: { publicKey: 1 }, name: 'publicKey_unique', unique: true },
    { key: { integratorId: 1, createdAt: 1 }, name: 'integrator_createdAt' },
    // The authentication key directory's refresh: keys registered or revoked since a moment.
    { key: { createdAt: 1 }, name: 'createdAt' },
    { key: { revokedAt: 1 }, name: 'revokedAt' },
  ],
  events: [
    // GET /v1/query/events: one index per filter shape (Equality → Sort → Range on createdAt).
    { key: { integratorId: 1, createdAt: -1, _id: -1 }, name: 'integrator_newest' },
    { key: { integratorId: 1, accountId: 1, createdAt: -1, _id: -1 }, name: 'integrator_account_newest' },
    { key: { integratorId: 1, userId: 1, createdAt: -1, _id: -1 }, name: 'integrator_user_newest' },
    { key: { integratorId: 1, transactionId: 1, createdAt: -1, _id: -1 }, name: 'integrator_transaction_newest' },
    { key: { integratorId: 1, eventType: 1, createdAt: -1, _id: -1 }, name: 'integrator_type_newest' },
  ],
  subscriptions: [
    // GET /v1/webhooks/subscriptions (live ones, optionally by status; Equality → Sort); the fan-out's match.
    { key: { integratorId: 1, deletedAt: 1, createdAt: -1, _id: -1 }, name: 'integrator_live_newest' },
    {
      key: { integratorId: 1, deletedAt: 1, status: 1, createdAt: -1, _id: -1 },
      name: 'integrator_live_status_newest',
    },
    // Retention: subscriptions deleted before the cutoff (src/retention/purge-subscriptions.ts).
    { key: { deletedAt: 1 }, name: 'deletedAt' },
  ],
  signing_keys: [{ key: { subscriptionId: 1, createdAt: 1 }, name: 'subscription_createdAt' }],
  deliveries: [
    // GET /v1/webhooks/deliveries: one index per filter (Equality → Sort).
    { key: { integratorId: 1, createdAt: -1, _id: -1 }, name: 'integrator_newest' },
    { key: { integratorId: 1, subscriptionId: 1, createdAt: -1, _id: -1 }, name: 'integrator_subscription_newest' },
    { key: { integratorId: 1, eventId: 1, createdAt: -1, _id: -1 }, name: 'integrator_event_newest' },
    { key: { integratorId: 1, status: 1, createdAt: -1, _id: -1 }, name: 'integrator_status_newest' },
    { key: { integratorId: 1, eventType: 1, createdAt: -1, _id: -1 }, name: 'integrator_type_newest' },
    // GET /internal/v1/deliveries (operators; by integrator it uses the indexes above).
    { key: { createdAt: -1, _id: -1 }, name: 'newest' },
    { key: { status: 1, createdAt: -1, _id: -1 }, name: 'status_newest' },
    { key: { subscriptionId: 1, createdAt: -1, _id: -1 }, name: 'subscription_newest' },
    // A resume releases a subscription's held deliveries, oldest first (src/store/deliveries-repo.ts listHeld).
    { key: { subscriptionId: 1, held: 1, createdAt: 1, _id: 1 }, name: 'subscription_held_oldest' },
    // DELETE of a subscription cancels its pending deliveries (a prefix of this index); a recovery campaign's
    // candidates (status in …, createdAt in a window, oldest first); the summary's counts by status and its oldest
    // pending delivery (src/store/recovery-candidates.ts). It replaces `subscription_status` (dropped by hand).
    { key: { subscriptionId: 1, status: 1, createdAt: 1, _id: 1 }, name: 'subscription_status_oldest' },
    // The worker's backlog gauges (src/telemetry/backlog.ts): pending deliveries, and those past their due time.
    { key: { status: 1, nextAttemptAt: 1 }, name: 'status_nextAttemptAt' },
  ],
  // `attempts` (a delivery's older attempts, src/store/attempts-repo.ts) is read and written by `_id` only: no index.
  // Replay digests and quota windows: a real MongoDB expires them itself; the API also sweeps them in code, since
  // the MongoDB-wire server keeps TTL indexes without expiring anything (src/store/expiring-repo.ts).
  replays: [{ key: { expiresAt: 1 }, name: 'expiresAt_ttl', expireAfterSeconds: 0 }],
  quotas: [{ key: { expiresAt: 1 }, name: 'expiresAt_ttl', expireAfterSeconds: 0 }],
  // Idempotency keys (src/store/idempotency-repo.ts): read and written by `_id`, expired like the two above.
  idempotency: [{ key: { expiresAt: 1 }, name: 'expiresAt_ttl', expireAfterSeconds: 0 }],
  // Portal links and sessions (src/store/portal-sessions-repo.ts): read by `_id`; an integrator's revoked together.
  portal_sessions: [
    { key: { expiresAt: 1 }, name: 'expiresAt_ttl', expireAfterSeconds: 0 },
    { key: { integratorId: 1 }, name: 'integratorId' },
  ],
  // Hourly attempt stats (src/store/attempt-stats-repo.ts): read and written by `_id`; an integrator's erased together.
  attempt_stats: [
    { key: { expiresAt: 1 }, name: 'expiresAt_ttl', expireAfterSeconds: 0 },
    { key: { integratorId: 1 }, name: 'integratorId' },
  ],
  // Ordered subscriptions' lanes and places (src/store/fifo-lanes-repo.ts): by `_id`; an integrator's erased together.
  fifo_lanes: [{ key: { integratorId: 1 }, name: 'integratorId' }],
  fifo_slots: [{ key: { integratorId: 1 }, name: 'integratorId' }],
};

/** A TTL index the server does not implement (the MongoDB-wire server): expiry then relies on the code's sweep. */
const ttlNotImplemented = (spec: IndexDescription, err: unknown): boolean =>
  spec.expireAfterSeconds !== undefined && err instanceof MongoServerError && err.code === 238;

/**
 * Creates the indexes that are missing, one per call. Idempotent: the API and the worker both run it at start-up.
 * (FerretDB v1.24 drops the connection when one createIndexes call names two or more indexes that all exist.)
 * Returns the names of TTL indexes the server refused as not implemented.
 */
export async function ensureIndexes(db: Db): Promise<{ skippedTtl: string[] }> {
  const skippedTtl: string[] = [];
  for (const [name, specs] of Object.entries(indexes)) {
    const collection = db.collection(name);
    const existing = new Set(
      await collection
        .listIndexes()
        .map((i: { name?: string }) => i.name)
        .toArray()
        .catch(() => []),
    );
    for (const spec of specs) {
      if (existing.has(spec.name)) continue;
      await collection.createIndexes([spec]).catch((err: unknown) => {
        if (!ttlNotImplemented(spec, err)) throw err;
        skippedTtl.push(`${name}.${spec.name}`);
      });
    }
  }
  return { skippedTtl };
}
