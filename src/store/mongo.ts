import { MongoClient, type Db, type MongoClientOptions } from 'mongodb';
import type { Config } from '../config.js';
import { withTimeout } from '../util/with-timeout.js';

export interface Mongo {
  readonly client: MongoClient;
  readonly db: Db;
}

/** Driver options a caller may add: command monitoring (the round-trip test counts every command). */
export type MongoOptions = Pick<MongoClientOptions, 'monitorCommands'>;

/** The driver connects lazily, so the API can start (and report not-ready) while MongoDB is down. */
export function createMongo(
  config: Pick<Config, 'MONGODB_URL' | 'MONGODB_DB'> & Partial<Pick<Config, 'MONGODB_MAX_POOL_SIZE'>>,
  options: MongoOptions = {},
): Mongo {
  // MONGODB_MAX_POOL_SIZE, else a maxPoolSize in the URL, else 50: the local MongoDB-wire server (one SQLite writer)
  // runs best with few connections (docs/scale-and-size.md, "Sizing the worker").
  const inUrl = /[?&]maxPoolSize=/i.test(config.MONGODB_URL);
  const maxPoolSize = config.MONGODB_MAX_POOL_SIZE ?? (inUrl ? undefined : 50);
  const pool = maxPoolSize === undefined ? {} : { maxPoolSize };
  const client = new MongoClient(config.MONGODB_URL, {
    serverSelectionTimeoutMS: 5_000,
    connectTimeoutMS: 5_000,
    ...pool,
    appName: 'herald',
    ...options,
  });
  return { client, db: client.db(config.MONGODB_DB) };
}

export async function pingMongo(db: Db, timeoutMs = 2_000): Promise<boolean> {
  const ping = db.command({ ping: 1 }).then(
    () => true,
    () => false,
  );
  return await withTimeout(ping, timeoutMs, false);
}
