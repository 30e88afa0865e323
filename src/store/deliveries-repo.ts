import type { Db } from 'mongodb';
import { type DeliveryStatus, type TerminalReason } from '../domain/delivery-vocabulary.js';
import type { Position } from './cursor.js';
import { createCancelOne } from './deliveries-cancel.js';
import { createDeliveryWaits, identityOf, type DeliveryIdentity } from './deliveries-waits.js';
import { deliveryIdOf } from './derived-ids.js';
import { isDuplicateKey } from './duplicate-key.js';
import { ownedBy } from './owned.js';
import type { AttemptDoc, DeliveryDoc } from './documents.js';
import {
  chooseListing,
  type DeliveryListFilters,
  type Listing,
  type ListingBounds,
  type ListingLayout,
  type PageSizes,
} from './listing/index.js';

/** What an attempt changes on its delivery. */
export type AttemptEffect = Pick<
  DeliveryDoc,
  | 'status'
  | 'attemptCount'
  | 'nextAttemptAt'
  | 'terminalReason'
  | 'lastResponseSummary'
  | 'updatedAt'
  | 'held'
  | 'waitReason'
>;
export { attemptsOf } from './attempts-repo.js';
export type { DeliveryIdentity };

/**
 * Deliveries (one per event and subscription) and their attempts, listed by `listing` (src/store/listing). With the
 * `pages` layout the hand-off files each delivery's position with its event's rows, and a delivery entering pending,
 * failed or cancelled is filed under that status here (never on the hot path, whose first attempt succeeds).
 */
export function deliveriesRepoWith(db: Db, listing: Listing) {
  const deliveries = db.collection<DeliveryDoc>('deliveries');

  return {
    collection: deliveries,
    /** The listing's page documents (used with the `pages` layout). */
    pages: listing.pages,
    /** Cancels one delivery by `_id` (src/store/deliveries-cancel.ts), filing it under `cancelled`. */
    cancelOne: createCancelOne(deliveries, async (before) => await listing.deliveries.fileStatus(before, 'cancelled')),

    /**
     * Marks a subscription's pending deliveries cancelled (terminal); returns their ids so their workflows can be
     * woken to end. An attempt already running records its own outcome but leaves a cancelled status alone. With
     * the `pages` layout the candidates are the subscription's rows filed as pending, each read and cancelled by
     * `_id`.
     */
    async cancelPendingOf(
      integratorId: string,
      subscriptionId: string,
      terminalReason: TerminalReason,
    ): Promise<string[]> {
      return await listing.deliveries.cancelPendingOf(integratorId, subscriptionId, terminalReason);
    },

    /**
     * The delivery of this event to this subscription, created on the first call: its `_id` is derived from both,
     * so a repeated or concurrent call finds the one record (by `_id`) instead of making a second.
     */
    async createOnce(
      fields: Pick<DeliveryDoc, 'integratorId' | 'subscriptionId' | 'eventId' | 'eventType'>,
      now = new Date(),
    ): Promise<DeliveryDoc> {
      const doc: DeliveryDoc = {
        _id: deliveryIdOf(fields.eventId, fields.subscriptionId),
        ...fields,
        status: 'pending',
        attemptCount: 0,
        createdAt: now,
        updatedAt: now,
        nextAttemptAt: now,
        terminalReason: null,
        lastResponseSummary: null,
      };
      try {
        await deliveries.insertOne(doc);
      } catch (err) {
        if (!isDuplicateKey(err)) throw err;
        const existing = await deliveries.findOne({ _id: doc._id });
        if (!existing) throw err;
        await listing.deliveries.file(existing);
        return existing;
      }
      await listing.deliveries.file(doc);
      return doc;
    },

    /** Many new deliveries at once, as stored (seeding, tests, benchmarks), with their listing rows; not idempotent. */
    async insertMany(docs: readonly DeliveryDoc[]): Promise<void> {
      if (docs.length === 0) return;
      await deliveries.insertMany(docs, { ordered: false });
      await listing.deliveries.fileMany(docs);
    },

    async findById(id: string): Promise<DeliveryDoc | null> {
      return await deliveries.findOne({ _id: id });
    },

    async findForIntegrator(integratorId: string, id: string): Promise<DeliveryDoc | null> {
      return ownedBy(integratorId, await deliveries.findOne({ _id: id }));
    },

    /**
     * A page of the integrator's deliveries, newest first, after `position` (keyset); `limit + 1` to detect more.
     * With the `pages` layout each row also names the page a cursor after it continues from.
     */
    async list(
      integratorId: string,
      filters: DeliveryListFilters,
      position: Position | null,
      limit: number,
    ): Promise<(DeliveryDoc & { page?: number })[]> {
      return await listing.deliveries.list(integratorId, filters, position, limit);
    },

    /** One of the latest attempts, kept in the delivery's document (older ones: the attempts repository). */
    async findAttempt(deliveryId: string, attemptNumber: number): Promise<AttemptDoc | null> {
      return (await deliveries.findOne({ _id: deliveryId }))?.attempts?.[String(attemptNumber)] ?? null;
    },

    /**
     * Records an attempt and its effect on the delivery in one write by `_id`, creating the delivery if its hand-off
     * wrote none (`identity`), and removes the attempts numbered `moved` (copied to the `attempts` collection
     * first: src/store/attempts-repo.ts), so the document keeps only the latest few. Idempotent: a retried activity writes the same attempt again. A delivery cancelled
     * while the attempt ran stays cancelled (its count and summary still record the attempt): the rare lost race is
     * put back by a second write, so that the common case is one write. Returns the status the delivery has now.
     */
    async recordAttempt(
      identity: DeliveryIdentity,
      attempt: AttemptDoc,
      effect: AttemptEffect,
      moved: readonly number[] = [],
    ): Promise<DeliveryStatus> {
      const { _id, ...created } = identityOf(identity);
      const unset =
        moved.length > 0 ? { $unset: Object.fromEntries(moved.map((n) => [`attempts.${n}`, '' as const])) } : {};
      const before = await deliveries.findOneAndUpdate(
        { _id },
        { $set: { ...effect, [`attempts.${attempt.attemptNumber}`]: attempt }, $setOnInsert: created, ...unset },
        { upsert: true, returnDocument: 'before' },
      );
      if (before?.status !== 'cancelled') {
        if (before?.status !== effect.status) await listing.deliveries.fileStatus(identity, effect.status);
        return effect.status;
      }
      await deliveries.updateOne(
        { _id },
        { $set: { status: 'cancelled', terminalReason: before.terminalReason, nextAttemptAt: null } },
      );
      return 'cancelled';
    },

    /**
     * Ends a delivery as cancelled (one write by `_id`; callers cancel only a delivery they know to be pending). A
     * handed-off delivery whose first attempt found its subscription gone is created cancelled.
     */
    async cancel(identity: DeliveryIdentity, terminalReason: TerminalReason, at: Date): Promise<void> {
      const { _id, ...created } = identityOf(identity);
      await deliveries.updateOne(
        { _id },
        {
          $set: { status: 'cancelled', terminalReason, nextAttemptAt: null, updatedAt: at, held: false },
          $setOnInsert: { ...created, attemptCount: 0, lastResponseSummary: null },
        },
        { upsert: true },
      );
      await listing.deliveries.fileStatus(identity, 'cancelled');
    },

    /**
     * Ends a delivery as failed without an attempt (its signing key cannot be opened), creating a handed-off one that
     * has no record yet; returns the status it has then (a delivery cancelled meanwhile stays cancelled).
     */
    async fail(identity: DeliveryIdentity, terminalReason: TerminalReason, at: Date): Promise<DeliveryStatus> {
      const { _id, ...created } = identityOf(identity);
      // A rare path (an operator must fix the key): one read first keeps a cancelled delivery cancelled, and a
      // handed-off delivery without a record gets a whole one.
      const current = await deliveries.findOne({ _id });
      if (current?.status === 'cancelled') return 'cancelled';
      const ended = { status: 'failed', terminalReason, nextAttemptAt: null, updatedAt: at } as const;
      const inserted =
        !current &&
        (await deliveries.insertOne({ _id, ...created, ...ended, attemptCount: 0, lastResponseSummary: null }).then(
          () => true,
          (err: unknown) => (isDuplicateKey(err) ? false : Promise.reject(err)),
        ));
      if (!inserted) await deliveries.updateOne({ _id }, { $set: ended });
      await listing.deliveries.fileStatus(identity, 'failed');
      return 'failed';
    },

    ...createDeliveryWaits(deliveries),

    /**
     * A terminal delivery made pending again by the run of a manual retry (activities/prepare-rerun.ts), addressed by
     * `_id` alone: that run is the only writer of this delivery then.
     */
    async reopen(delivery: DeliveryIdentity, at: Date): Promise<void> {
      await deliveries.updateOne(
        { _id: delivery._id },
        { $set: { status: 'pending', terminalReason: null, nextAttemptAt: at, updatedAt: at } },
      );
      await listing.deliveries.fileStatus(delivery, 'pending');
    },
  };
}

/** The deliveries repository with a listing of its own on `layout` (tests; createStore shares one listing). */
export const createDeliveriesRepo = (
  db: Db,
  layout: ListingLayout = 'auto',
  pageSizes?: Partial<PageSizes>,
  bounds?: ListingBounds,
) => deliveriesRepoWith(db, chooseListing(db, layout, pageSizes, bounds));

export type DeliveriesRepo = ReturnType<typeof deliveriesRepoWith>;
