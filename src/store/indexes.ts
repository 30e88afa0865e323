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
