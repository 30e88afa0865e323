import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { Config } from '../../../config.js';
import { createMongo, type Mongo, type MongoOptions } from '../../../store/mongo.js';
import { ensureIndexes } from '../../../store/indexes.js';
import { createTemporal, type Temporal } from '../../../temporal/client.js';

declare module 'fastify' {
  interface FastifyInstance {
    config: Config;
    mongo: Mongo;
    temporal: Temporal;
  }
}

export interface ConnectionsOptions {
  config: Config;
  /** Connect and create the indexes at start-up (default true): start-up fails when MongoDB is unreachable. */
  ensureIndexes?: boolean;
  mongoOptions?: MongoOptions;
}

/** External connections: MongoDB and Temporal, opened once and closed when the app closes. */
export const connectionsPlugin = fp<ConnectionsOptions>(
  async (app: FastifyInstance, { config, ensureIndexes: create = true, mongoOptions }) => {
    const mongo = createMongo(config, mongoOptions);
    const temporal = createTemporal(config);
    app.decorate('config', config);
    app.decorate('mongo', mongo);
    app.decorate('temporal', temporal);
    if (create) {
      await mongo.client.connect();
      await ensureIndexes(mongo.db);
    }
    app.addHook('onClose', async () => {
      await Promise.allSettled([mongo.client.close(), temporal.close()]);
    });
  },
  { name: 'connections' },
);
