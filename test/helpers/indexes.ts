import type { Db, Document } from 'mongodb';

/** A collection's indexes as the server lists them; a collection never created (its only index, a TTL one, refused
 * by the MongoDB-wire server) lists just `_id_`. */
export async function listedIndexes(db: Db, collection: string): Promise<Document[]> {
  return await db
    .collection(collection)
    .listIndexes()
    .toArray()
    .catch(() => [{ name: '_id_' }]);
}
