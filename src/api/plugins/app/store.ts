import { hkdfSync } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { createStore, listingBoundsOf, type Store } from '../../../store/index.js';
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
    app.decorate(
      'store',
      createStore(app.mongo.db, {
        listingLayout: app.config.HERALD_LISTING_LAYOUT,
        listingBounds: listingBoundsOf(app.config),
      }),
    );
    // Every instance sharing the master key accepts the others' cursors; HERALD_CURSOR_SECRET overrides.
    const secret =
      app.config.HERALD_CURSOR_SECRET ??
      Buffer.from(hkdfSync('sha256', app.masterKey, Buffer.alloc(0), 'herald page cursors v1', 32));
    app.decorate('cursors', createCursorCodec(secret));
  },
  { name: 'store', dependencies: ['connections', 'vault'] },
);
