import type { Db } from 'mongodb';

/** All repositories, built once per process over one database. */
export function createStore(db: Db) {
  return { db } as const;
}

export type Store = ReturnType<typeof createStore>;
