import type { Db } from 'mongodb';

/** What a portal session may do: read only, or everything the integrator's signed API may (docs/portal.md). */
export type PortalScope = 'read' | 'manage';

/**
 * A portal link (single use, minutes) or the session it became (a cookie, hours). Addressed by `_id`, the SHA-256 of
 * the secret the browser holds: the database never holds a usable secret. Expired documents are never trusted and
 * are swept with the other expiring collections (src/store/expiring-repo.ts).
 */
export interface PortalSessionDoc {
  _id: string;
  kind: 'link' | 'session';
  integratorId: string;
  scope: PortalScope;
  /** A link: when it stops working if unused. A session: when it ends. */
  expiresAt: Date;
  /** A link: how long the session it becomes lasts (ms). */
  sessionMs: number;
  createdAt: Date;
}

export function createPortalSessionsRepo(db: Db) {
  const sessions = db.collection<PortalSessionDoc>('portal_sessions');
  return {
    sessions,
    async insert(doc: PortalSessionDoc): Promise<void> {
      await sessions.insertOne(doc);
    },
    /** Takes a link out (single use: of two racing exchanges one finds it); null when unknown, used or expired. */
    async consumeLink(id: string, now = new Date()): Promise<PortalSessionDoc | null> {
      const link = await sessions.findOneAndDelete({ _id: id });
      return link && link.kind === 'link' && link.expiresAt > now ? link : null;
    },
    /** The live session with this id, or null. */
    async findSession(id: string, now = new Date()): Promise<PortalSessionDoc | null> {
      const found = await sessions.findOne({ _id: id });
      return found && found.kind === 'session' && found.expiresAt > now ? found : null;
    },
    async remove(id: string): Promise<void> {
      await sessions.deleteOne({ _id: id });
    },
    /** Ends every session and unused link of an integrator (its keys revoked, or an operator's request). */
    async revokeIntegrator(integratorId: string): Promise<number> {
      return (await sessions.deleteMany({ integratorId })).deletedCount;
    },
  };
}

export type PortalSessionsRepo = ReturnType<typeof createPortalSessionsRepo>;
