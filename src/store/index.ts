import type { Db } from 'mongodb';
import { createIntegratorsRepo } from './integrators-repo.js';

/** All repositories, built once per process over one database. */
export function createStore(db: Db) {
  return {
    db,
    integrators: createIntegratorsRepo(db),
  } as const;
}

export type Store = ReturnType<typeof createStore>;
