import { randomUUID } from 'node:crypto';
import type { Db } from 'mongodb';
import { isDuplicateKey } from './duplicate-key.js';

export interface IntegratorDoc {
  _id: string;
  name: string;
  createdAt: Date;
  /** Set when its erasure began (docs/retention.md, "Erasure"): it is unknown from then on. */
  erasingAt?: Date;
}

export interface IntegratorKeyDoc {
  _id: string;
  integratorId: string;
  /** Compressed SEC1 P-256 point, lowercase hex without prefix; unique across all integrators. */
  publicKey: string;
  createdAt: Date;
  revokedAt: Date | null;
}

/** How long ingestion trusts that an integrator exists: an erasure waits longer before it erases (workflows/erasure.ts). */
export const KNOWN_FOR_MS = 10_000;

/** The key directory's reads give up after this long: a stuck one must not hold every later refresh. */
const REFRESH_MAX_MS = 10_000;

export class DuplicateKeyError extends Error {
  override readonly name = 'DuplicateKeyError';
}

/** Integrators and their request-signing keys. */
export function createIntegratorsRepo(db: Db) {
  const integrators = db.collection<IntegratorDoc>('integrators');
  const keys = db.collection<IntegratorKeyDoc>('integrator_keys');
  /** Integrators seen to exist, until when that answer holds (an erasure makes an integrator unknown). */
  const known = new Map<string, number>();

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

    /**
     * Whether it exists and is not being erased, answered from memory for KNOWN_FOR_MS once true (ingestion asks it for
     * every event).
     */
    async known(id: string, now = Date.now()): Promise<boolean> {
      if ((known.get(id) ?? 0) > now) return true;
      const doc = await integrators.findOne({ _id: id }, { projection: { _id: 1, erasingAt: 1 } });
      if (!doc || doc.erasingAt) return false;
      if (known.size >= 100_000) known.clear();
      known.set(id, now + KNOWN_FOR_MS);
      return true;
    },

    /** Marks it erasing (unknown to ingestion from now on) and revokes its keys; answers false when it is gone. */
    async beginErasure(id: string, at = new Date()): Promise<boolean> {
      const marked = await integrators.updateOne({ _id: id }, { $set: { erasingAt: at } });
      await keys.updateMany({ integratorId: id, revokedAt: null }, { $set: { revokedAt: at } });
      return marked.matchedCount > 0;
    },

    /**
     * Deletes it: the last step of its erasure. Its request-signing keys stay, revoked (public keys, never personal
     * data): every API instance's key directory learns of a revocation from the record, and a revoked key can never be
     * registered again.
     */
    async erase(id: string): Promise<void> {
      await integrators.deleteOne({ _id: id });
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
