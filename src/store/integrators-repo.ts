import { randomUUID } from 'node:crypto';
import { MongoServerError, type Db } from 'mongodb';

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

export class DuplicateKeyError extends Error {
  override readonly name = 'DuplicateKeyError';
}

export const isDuplicateKey = (err: unknown): boolean => err instanceof MongoServerError && err.code === 11000;

/** Integrators and their request-signing keys. */
export function createIntegratorsRepo(db: Db) {
  const integrators = db.collection<IntegratorDoc>('integrators');
  const keys = db.collection<IntegratorKeyDoc>('integrator_keys');

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

    /** The active key with this public key, for authentication. */
    async findActiveKey(publicKey: string): Promise<IntegratorKeyDoc | null> {
      return await keys.findOne({ publicKey, revokedAt: null });
    },
  };
}

export type IntegratorsRepo = ReturnType<typeof createIntegratorsRepo>;
