import type { Db, IndexDescription } from 'mongodb';

/**
 * Every index Herald needs, declared in one place and created at start-up.
 * Each listing query is covered Equality → Sort → Range; uniqueness carries idempotency (no transactions).
 */
export const indexes: Readonly<Record<string, readonly IndexDescription[]>> = {};

export async function ensureIndexes(db: Db): Promise<void> {
  for (const [collection, specs] of Object.entries(indexes)) {
    if (specs.length > 0) await db.collection(collection).createIndexes([...specs]);
  }
}
