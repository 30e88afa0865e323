import type { Db } from 'mongodb';
import type { DeliveryDoc } from '../documents.js';
import { pageCollections, type PageSizes } from '../pages/index.js';
import { deliveriesOnPages } from './deliveries-pages.js';
import { eventsOnPages } from './events-pages.js';
import { deliveriesOnIndexes, eventsOnIndexes } from './indexes.js';
import type { Listing, ListingLayout } from './listing.js';
import { retentionOnIndexes, retentionOnPages } from './retention.js';
import { defaultListingBounds, type ListingBounds } from './scan-budget.js';

/** FerretDB answers buildInfo with a `ferretdbVersion` field; MongoDB does not. */
async function detectLayout(db: Db): Promise<'pages' | 'indexes'> {
  const info = await db.admin().command({ buildInfo: 1 });
  return 'ferretdbVersion' in info ? 'pages' : 'indexes';
}

/** The layout to use, resolved once (lazily: the store is built before the client connects). */
function layoutResolver(db: Db, configured: ListingLayout): () => Promise<'pages' | 'indexes'> {
  let resolved: Promise<'pages' | 'indexes'> | undefined;
  return () => {
    if (configured !== 'auto') return Promise.resolve(configured);
    resolved ??= detectLayout(db).catch((err: unknown) => {
      resolved = undefined;
      throw err;
    });
    return resolved;
  };
}

/**
 * Both listings on the configured layout: the one place that knows which layout is in force. Each call waits for the
 * layout (known at once unless `auto`, which asks the server on first use) and goes to that layout's listing; the
 * repositories receive this and never ask. `sizes`: the page documents' (tests use small ones); `bounds`: what one
 * page may read (scan-budget.ts).
 */
export function chooseListing(
  db: Db,
  configured: ListingLayout = 'auto',
  sizes?: Partial<PageSizes>,
  bounds: ListingBounds = defaultListingBounds,
): Listing {
  const pages = pageCollections(db, sizes);
  const on = {
    pages: {
      events: eventsOnPages(pages, bounds),
      deliveries: deliveriesOnPages(pages, db.collection<DeliveryDoc>('deliveries'), bounds),
      retention: retentionOnPages(pages),
    },
    indexes: {
      events: eventsOnIndexes(db, bounds),
      deliveries: deliveriesOnIndexes(db, bounds),
      retention: retentionOnIndexes(db),
    },
  };
  const layout = layoutResolver(db, configured);
  const chosen = async () => on[await layout()];
  return {
    layout,
    pages,
    events: {
      file: async (...a) => await (await chosen()).events.file(...a),
      fileMany: async (...a) => await (await chosen()).events.fileMany(...a),
      list: async (...a) => await (await chosen()).events.list(...a),
    },
    deliveries: {
      file: async (...a) => await (await chosen()).deliveries.file(...a),
      fileMany: async (...a) => await (await chosen()).deliveries.fileMany(...a),
      fileStatus: async (...a) => await (await chosen()).deliveries.fileStatus(...a),
      list: async (...a) => await (await chosen()).deliveries.list(...a),
      cancelPendingOf: async (...a) => await (await chosen()).deliveries.cancelPendingOf(...a),
    },
    retention: {
      walks: async (...a) => await (await chosen()).retention.walks(...a),
      deliveriesOf: async (...a) => await (await chosen()).retention.deliveriesOf(...a),
      forget: async (...a) => await (await chosen()).retention.forget(...a),
    },
  };
}
