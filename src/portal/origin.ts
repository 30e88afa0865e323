import type { FastifyRequest } from 'fastify';
import type { Config } from '../config.js';
import { sameToken } from './secrets.js';

/** The portal's URL (…/portal/): the configured one, else this API's own origin as the request reached it. */
export const portalUrlOf = (config: Config, request: FastifyRequest): string =>
  config.HERALD_PORTAL_URL ?? new URL('/portal/', `${request.protocol}://${request.host}`).href;

/**
 * Why a write from the portal's page is not taken as one (CSRF), or null: it must come from the portal's own origin
 * (the browser's Origin header, which a page cannot forge) and carry the session's token.
 */
export function crossSiteProblem(config: Config, request: FastifyRequest, expectedToken: string | null): string | null {
  const origin = request.headers.origin;
  if (origin !== new URL(portalUrlOf(config, request)).origin) return 'the request did not come from the portal page';
  if (expectedToken === null) return null;
  const token = request.headers['x-csrf-token'];
  if (typeof token !== 'string' || !sameToken(token, expectedToken)) return 'missing or wrong X-CSRF-Token';
  return null;
}
