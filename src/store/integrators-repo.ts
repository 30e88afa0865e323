import { randomUUID } from 'node:crypto';
import type { Db } from 'mongodb';
import { isDuplicateKey } from './duplicate-key.js';

export interface IntegratorDoc {
  _id: string;
  name: string;
  createdAt: Date;
}

export interface IntegratorKeyDoc {
  _id: string;
  integratorId: string;
  /** Compressed SEC1 P-256 point, lowercase hex without prefix; unique across all integrators. */
  publicKey: string;
  createdAt: Date;
  revokedAt: Date | null;
}

/** The key directory's reads give up after this long: a stuck one must not hold every later refresh. */
const REFRESH_MAX_MS = 10_000;

export class DuplicateKeyError extends Error {
  override readonly name = 'DuplicateKeyError';
}

/** Integrators and their request-signing keys. */
export function createIntegratorsRepo(db: Db) {
  const integrators = db.collection<IntegratorDoc>('integrators');
  const keys = db.collection<IntegratorKeyDoc>('integrator_keys');
  /** Integrators seen to exist. Integrators are never deleted, so a positive answer never goes stale. */
  const known = new Set<string>();

  return {
    async create(name: string): Promise<IntegratorDoc> {
      const doc: IntegratorDoc = { _id: randomUUID(), name, createdAt: new Date() };
      await integrators.insertOne(doc);
      return doc;
    },

    async find(id: string): Promise<IntegratorDoc | null> {
      return await integrators.findOne({ _id: id });
    },

    async exists(id: string): Promise<boolean> {
      return (await integrators.countDocuments({ _id: id }, { limit: 1 })) > 0;
    },

    /** exists(), answered from memory once true (ingestion asks it for every event). */
    async known(id: string): Promise<boolean> {
      if (known.has(id)) return true;
      if (!(await integrators.findOne({ _id: id }, { projection: { _id: 1 } }))) return false;
      if (known.size < 100_000) known.add(id);
      return true;
    },

    async listKeys(integratorId: string): Promise<IntegratorKeyDoc[]> {
      return await keys.find({ integratorId }).sort({ createdAt: 1, _id: 1 }).toArray();
    },

    /** Registers a key; a key registered anywhere before (revoked ones included) → DuplicateKeyError. */
    async addKey(integratorId: string, publicKey: string): Promise<IntegratorKeyDoc> {
      const doc: IntegratorKeyDoc = {
        _id: randomUUID(),
        integratorId,
        publicKey,
        createdAt: new Date(),
        revokedAt: null,
      };
      try {
        await keys.insertOne(doc);
      } catch (err) {
        if (isDuplicateKey(err)) throw new DuplicateKeyError('this public key is already registered');
        throw err;
      }
      return doc;
    },

    /** Revokes a key of this integrator; the record stays, so the key can never be registered again. */
    async revokeKey(integratorId: string, keyId: string): Promise<IntegratorKeyDoc | null> {
      return await keys.findOneAndUpdate(
        { _id: keyId, integratorId, revokedAt: null },
        { $set: { revokedAt: new Date() } },
        { returnDocument: 'after' },
      );
    },

    /** Every active key, for the authentication key directory (src/auth/key-directory.ts). */
    async activeKeys(): Promise<IntegratorKeyDoc[]> {
      return await keys.find({ revokedAt: null }, { maxTimeMS: REFRESH_MAX_MS }).toArray();
    },

    /** Keys registered or revoked at or after `since` (both indexed), for the key directory's refresh. */
    async keysChangedSince(since: Date): Promise<IntegratorKeyDoc[]> {
      return await keys
        .find({ $or: [{ createdAt: { $gte: since } }, { revokedAt: { $gte: since } }] }, { maxTimeMS: REFRESH_MAX_MS })
        .toArray();
    },
  };
}

export type IntegratorsRepo = ReturnType<typeof createIntegratorsRepo>;
