import type { Db } from 'mongodb';

/**
 * How the event history listing is stored (docs/events.md): `pages` — page documents reached by `_id`, for the
 * embedded MongoDB-wire server (FerretDB), which evaluates every other filter over the whole collection;
 * `indexes` — plain documents and the declared indexes, for a real MongoDB. `auto` asks the server.
 */
export type ListingLayout = 'auto' | 'pages' | 'indexes';

/** FerretDB answers buildInfo with a `ferretdbVersion` field; MongoDB does not. */
export async function detectLayout(db: Db): Promise<'pages' | 'indexes'> {
  const info = await db.admin().command({ buildInfo: 1 });
  return 'ferretdbVersion' in info ? 'pages' : 'indexes';
}

/** The layout to use, resolved once (lazily: the repository is built before the client connects). */
export function layoutResolver(db: Db, configured: ListingLayout): () => Promise<'pages' | 'indexes'> {
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
