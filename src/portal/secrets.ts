// The portal's secrets: what a browser holds (a link's token, a session's cookie) and what the database keeps of them.
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** 256 random bits, URL-safe. */
export const newSecret = (): string => randomBytes(32).toString('base64url');

/** The `_id` of a link or session: a digest, so the database never holds a usable secret. */
export const idOf = (secret: string): string => createHash('sha256').update(secret).digest('base64url');

/**
 * The session's CSRF token, derived from its secret: the page reads it from GET /portal/session and sends it with
 * every write; a page of another site can neither read the HttpOnly cookie nor this answer.
 */
export const csrfOf = (secret: string): string =>
  createHmac('sha256', secret).update('herald portal csrf').digest('base64url');

/** Constant-time comparison of two tokens. */
export function sameToken(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}
