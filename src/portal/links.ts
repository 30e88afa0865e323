// Portal links and the sessions they become (docs/portal.md): a link works once, for a few minutes; the session it
// becomes is a cookie of at most 12 h, ended by sign-out, by an operator, or by the revocation of an integrator key.
import type { PortalScope, PortalSessionDoc, PortalSessionsRepo } from '../store/portal-sessions-repo.js';
import { idOf, newSecret } from './secrets.js';

/** How long an unused link works. */
export const LINK_TTL_MS = 5 * 60_000;
/** A session's length: default and bounds (seconds). */
export const SESSION_SECONDS = { default: 3600, min: 300, max: 12 * 3600 } as const;

export interface LinkRequest {
  readonly integratorId: string;
  readonly scope: PortalScope;
  readonly sessionSeconds: number;
}

/** A new link into the portal at `portalUrl` (…/portal/): the token travels in the fragment, never to a server log. */
export async function issueLink(
  repo: PortalSessionsRepo,
  { integratorId, scope, sessionSeconds }: LinkRequest,
  portalUrl: string,
  now = new Date(),
): Promise<{ url: string; expiresAt: Date }> {
  const token = newSecret();
  const expiresAt = new Date(now.getTime() + LINK_TTL_MS);
  await repo.insert({
    _id: idOf(token),
    kind: 'link',
    integratorId,
    scope,
    expiresAt,
    sessionMs: sessionSeconds * 1000,
    createdAt: now,
  });
  return { url: `${portalUrl}#token=${token}`, expiresAt };
}

/** Exchanges a link's token for a session (the link is used up whatever follows); null when it does not work. */
export async function openSession(
  repo: PortalSessionsRepo,
  token: string,
  now = new Date(),
): Promise<{ secret: string; session: PortalSessionDoc } | null> {
  const link = await repo.consumeLink(idOf(token), now);
  if (!link) return null;
  const secret = newSecret();
  const session: PortalSessionDoc = {
    _id: idOf(secret),
    kind: 'session',
    integratorId: link.integratorId,
    scope: link.scope,
    expiresAt: new Date(now.getTime() + link.sessionMs),
    sessionMs: link.sessionMs,
    createdAt: now,
  };
  await repo.insert(session);
  return { secret, session };
}
