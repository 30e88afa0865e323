import type { Db } from 'mongodb';
import type { PauseReason } from '../domain/delivery-vocabulary.js';
import { isHeraldEventType, isSubscribable } from '../domain/event-types.js';
import type { SealedKey } from '../crypto/key-encryption.js';
import { findByIds } from './by-ids.js';
import { isDuplicateKey } from './duplicate-key.js';
import { keyPage, newestKeys, VIEW_KEYS } from './signing-key-reads.js';
import type { Position } from './cursor.js';
import { cmp } from './pages/index.js';
import { ownedBy } from './owned.js';
import type { EventDoc, SigningKeyDoc, SubscriptionDoc } from './documents.js';
import { createSubscriptionIndex } from './subscription-index.js';

/** What an integrator may change with PATCH. */
export type SubscriptionChanges = Partial<
  Pick<SubscriptionDoc, 'url' | 'eventTypes' | 'description' | 'status' | 'ordering'>
>;

/** A freshly generated key pair, the private half already sealed with AAD = the subscription id. */
export interface NewSigningKey {
  id: string;
  publicKey: string;
  sealed: SealedKey;
}

/** A lost race against a concurrent rotation is retried; this many losses in a row is not a race any more. */
const MAX_ROTATION_TRIES = 10;

/** Webhook subscriptions and their signing keys. */
export function createSubscriptionsRepo(db: Db) {
  const subscriptions = db.collection<SubscriptionDoc>('subscriptions');
  const keys = db.collection<SigningKeyDoc>('signing_keys');
  const index = createSubscriptionIndex(db);

  const keyDoc = (subscription: Pick<SubscriptionDoc, '_id' | 'integratorId'>, key: NewSigningKey, now: Date) =>
    ({
      _id: key.id,
      integratorId: subscription.integratorId,
      subscriptionId: subscription._id,
      publicKey: key.publicKey,
      sealed: key.sealed,
      status: 'active',
      createdAt: now,
      deactivatedAt: null,
    }) satisfies SigningKeyDoc;

  /** The integrator's live subscription, read by `_id` alone (ownership and liveness checked here). */
  const findLive = async (integratorId: string, id: string): Promise<SubscriptionDoc | null> => {
    const found = ownedBy(integratorId, await subscriptions.findOne({ _id: id }));
    return found?.deletedAt === null ? found : null;
  };

  return {
    collection: subscriptions,
    keys,
    index,

    /** By id, deleted ones included, across integrators: for the worker. */
    async findById(id: string): Promise<SubscriptionDoc | null> {
      return await subscriptions.findOne({ _id: id });
    },

    /** The integrator's subscription unless deleted: what every integrator route may see. */
    findLive,

    async findKey(keyId: string): Promise<SigningKeyDoc | null> {
      return await keys.findOne({ _id: keyId });
    },

    /**
     * The fan-out targets of a lifecycle event: the integrator's enabled (or paused), live subscriptions to its type that
     * existed when the event was stored (a subscription made later does not receive older events), each with the
     * version matched. One read by `_id`: the integrator's subscription index.
     */
    async findMatching(
      event: Pick<EventDoc, 'integratorId' | 'eventType' | 'createdAt'>,
    ): Promise<{ id: string; version: number; fifo: boolean }[]> {
      // History-only types (customer.deleted, …) and webhook.test are not subscribable: nobody receives them.
      const type = event.eventType;
      const own = isHeraldEventType(type);
      if (!own && !isSubscribable(type)) return [];
      return (
        Object.entries(await index.entries(event.integratorId))
          // A paused subscription still gets its deliveries: they are held until it is resumed.
          .filter(([, e]) => e.status !== 'disabled' && e.createdAt <= event.createdAt)
          // 'all' is the spec's subscribable enum (§6.2); Herald's own types go only to a subscription naming them.
          .filter(([, e]) => (e.eventTypes === 'all' ? !own : e.eventTypes.includes(type)))
          .map(([id, e]) => ({ id, version: e.version, fifo: e.ordering === 'fifo' }))
      );
    },

    /** How many live (not deleted) subscriptions the integrator has: its subscription quota. */
    async countLive(integratorId: string): Promise<number> {
      return Object.keys(await index.entries(integratorId)).length;
    },

    /**
     * Stores a subscription with its first key. The key goes first: a crash in between leaves a key nothing refers
     * to (never used, never listed), never a subscription without its key.
     */
    async create(
      fields: Pick<SubscriptionDoc, '_id' | 'integratorId' | 'url' | 'eventTypes' | 'description' | 'ordering'>,
      key: NewSigningKey,
      now = new Date(),
    ): Promise<{ subscription: SubscriptionDoc; keys: SigningKeyDoc[] }> {
      const signingKey = keyDoc(fields, key, now);
      await keys.insertOne(signingKey);
      const { ordering, ...rest } = fields;
      const subscription: SubscriptionDoc = {
        ...rest,
        ...(ordering === 'fifo' ? { ordering } : {}), // absent reads as none
        status: 'enabled',
        activeKeyId: key.id,
        createdAt: now,
        updatedAt: now,
        deletedAt: null,
        keyIds: [key.id],
        version: 0,
      };
      const inserted = await subscriptions.insertOne(subscription).then(
        () => true,
        (err: unknown) => {
          if (isDuplicateKey(err)) return false;
          throw err;
        },
      );
      if (inserted) {
        await index.put(subscription);
        return { subscription, keys: [signingKey] };
      }
      // The id is derived from an Idempotency-Key and an earlier try got this far: that subscription is the answer
      // (indexed again, in case that try stopped before it), and the key made now is dropped unreferenced.
      const earlier = ownedBy(fields.integratorId, await subscriptions.findOne({ _id: fields._id }));
      if (!earlier) throw new Error(`subscription id ${fields._id} is taken`);
      await keys.deleteOne({ _id: signingKey._id });
      await index.put(earlier);
      return { subscription: earlier, keys: await newestKeys(keys, [earlier], VIEW_KEYS) };
    },

    /**
     * The integrator's live subscriptions, newest first, after `position`: positions from its subscription index (one
     * read by `_id`), then the page's rows in one find by `_id` (src/store/by-ids.ts).
     */
    async list(
      integratorId: string,
      filters: Partial<Pick<SubscriptionDoc, 'status'>>,
      position: Position | null,
      limit: number,
    ): Promise<SubscriptionDoc[]> {
      const ids = Object.entries(await index.entries(integratorId))
        .filter(([, e]) => filters.status === undefined || e.status === filters.status)
        .map(([id, e]) => ({ id, c: e.createdAt.getTime() }))
        .filter(({ id, c }) => !position || cmp({ c, i: id }, { c: position.createdAt.getTime(), i: position.id }) < 0)
        .sort((x, y) => cmp({ c: y.c, i: y.id }, { c: x.c, i: x.id }))
        .slice(0, limit);
      const docs = await findByIds(
        subscriptions,
        ids.map(({ id }) => id),
      );
      return docs
        .map((d) => ownedBy(integratorId, d))
        .filter(
          (d): d is SubscriptionDoc =>
            d !== null && d.deletedAt === null && (!filters.status || d.status === filters.status),
        );
    },

    /** The newest keys of these subscriptions, at most `max` each (the active one always among them), oldest first. */
    async listKeys(subs: readonly SubscriptionDoc[], max = VIEW_KEYS): Promise<SigningKeyDoc[]> {
      return await newestKeys(keys, subs, max);
    },

    /** A page of the subscription's keys, newest first: the whole history, page by page. */
    async keyPage(sub: SubscriptionDoc, position: Position | null, limit: number) {
      return await keyPage(keys, sub, position, limit);
    },

    /** Applies PATCH changes to a live subscription (updatedAt bumped); null when it is not (or no longer) live. */
    async update(
      integratorId: string,
      id: string,
      changes: SubscriptionChanges,
      now = new Date(),
    ): Promise<SubscriptionDoc | null> {
      // Read, then written, by `_id` alone: a concurrent DELETE in between leaves it deleted (the answer is null).
      if (!(await findLive(integratorId, id))) return null;
      const updated = await subscriptions.findOneAndUpdate(
        { _id: id },
        { $set: { ...changes, updatedAt: now }, $inc: { version: 1 } },
        { returnDocument: 'after' },
      );
      if (updated) await index.put(updated);
      return updated?.deletedAt === null ? updated : null;
    },

    /**
     * Pauses a live, enabled subscription (one write by `_id`, plus its index entry): the paused document, or null
     * when it was not enabled (already paused, disabled, deleted). `integratorId` null: the worker, across integrators.
     */
    async pause(
      integratorId: string | null,
      id: string,
      reason: PauseReason,
      now = new Date(),
    ): Promise<SubscriptionDoc | null> {
      const paused = await subscriptions.findOneAndUpdate(
        { _id: id, ...(integratorId === null ? {} : { integratorId }), deletedAt: null, status: 'enabled' },
        { $set: { status: 'paused', pausedReason: reason, pausedAt: now, updatedAt: now }, $inc: { version: 1 } },
        { returnDocument: 'after' },
      );
      if (paused) await index.put(paused);
      return paused;
    },

    /** Makes a paused live subscription enabled again; null when it was not paused. */
    async resume(integratorId: string, id: string, now = new Date()): Promise<SubscriptionDoc | null> {
      const resumed = await subscriptions.findOneAndUpdate(
        { _id: id, integratorId, deletedAt: null, status: 'paused' },
        { $set: { status: 'enabled', pausedReason: null, pausedAt: null, updatedAt: now }, $inc: { version: 1 } },
        { returnDocument: 'after' },
      );
      if (resumed) await index.put(resumed);
      return resumed;
    },

    /** Marks a live subscription deleted; false when there was none. The record and its keys stay. */
    async softDelete(integratorId: string, id: string, now = new Date()): Promise<boolean> {
      // Read, then written, by `_id` alone; of two concurrent DELETEs the one that found it live already answers 204.
      if (!(await findLive(integratorId, id))) return false;
      const before = await subscriptions.findOneAndUpdate(
        { _id: id },
        { $set: { deletedAt: now, updatedAt: now }, $inc: { version: 1 } },
        { returnDocument: 'before' },
      );
      if (!before) return false;
      await index.put({ ...before, deletedAt: now, updatedAt: now, version: (before.version ?? 0) + 1 });
      return before.deletedAt === null;
    },

    /**
     * Makes `key` the active key. Order: add its id to the subscription's `keyIds`, insert the new key, point `activeKeyId` at it (only if it still points at
     * the key being replaced, so concurrent rotations serialise), then mark the replaced key inactive. A crash at
     * any point leaves the subscription referring to exactly one existing key. Null when the subscription is gone.
     */
    async rotateKey(current: SubscriptionDoc, key: NewSigningKey, now = new Date()): Promise<SubscriptionDoc | null> {
      // The key is listed from here on, whether this rotation completes or not (a record older than `keyIds` stays
      // without it: its keys are found by a query).
      // The key's id may be derived from an Idempotency-Key: an earlier try of this rotation that got this far
      // already listed and stored it (the key stored first stays), or finished.
      if (current.activeKeyId === key.id) return current;
      if (current.keyIds) await subscriptions.updateOne({ _id: current._id }, { $addToSet: { keyIds: key.id } });
      await keys.insertOne(keyDoc(current, key, now)).catch((err: unknown) => {
        if (!isDuplicateKey(err)) throw err;
      });
      let replaced: SubscriptionDoc | null = current;
      for (let tries = 0; replaced && tries < MAX_ROTATION_TRIES; tries++) {
        const rotated = await subscriptions.findOneAndUpdate(
          { _id: current._id, integratorId: current.integratorId, deletedAt: null, activeKeyId: replaced.activeKeyId },
          {
            $set: { activeKeyId: key.id, updatedAt: now },
            $inc: { version: 1 },
          },
          { returnDocument: 'after' },
        );
        if (rotated) {
          await index.put(rotated);
          await keys.updateOne(
            { _id: replaced.activeKeyId, status: 'active' },
            { $set: { status: 'inactive', deactivatedAt: now } },
          );
          return rotated;
        }
        // Another rotation won, or the subscription was deleted meanwhile.
        replaced = await findLive(current.integratorId, current._id);
      }
      await keys.updateOne({ _id: key.id }, { $set: { status: 'inactive', deactivatedAt: now } });
      if (replaced) throw new Error(`rotation of subscription ${current._id} lost ${MAX_ROTATION_TRIES} races`);
      return null;
    },
  };
}

export type SubscriptionsRepo = ReturnType<typeof createSubscriptionsRepo>;
