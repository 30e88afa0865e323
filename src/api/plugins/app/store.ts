import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { createStore, type Store } from '../../../store/index.js';
import { createCursorCodec, type CursorCodec } from '../../../store/cursor.js';

declare module 'fastify' {
  interface FastifyInstance {
    store: Store;
    cursors: CursorCodec;
  }
}

/** Repositories over the one database, and the page-cursor codec every listing shares. */
export const storePlugin = fp(
  async (app: FastifyInstance) => {
    app.decorate('store', createStore(app.mongo.db));
    let secret = app.config.HERALD_CURSOR_SECRET;
    if (secret === undefined) {
      app.log.warn('HERALD_CURSOR_SECRET is not set: page cursors are signed with a per-process key');
      secret = randomBytes(32).toString('base64');
    }
    app.decorate('cursors', createCursorCodec(secret));
  },
  { name: 'store', dependencies: ['connections'] },
);
