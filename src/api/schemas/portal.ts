import { z } from 'zod';
import { SESSION_SECONDS } from '../../portal/links.js';
import { dateTime, uuid } from './common.js';

export const portalScope = z
  .enum(['read', 'manage'])
  .describe('read: look only (no write control is shown, and the API refuses writes 403); manage: every action');

/** POST /v1/portal/sessions and the operator's equivalent. */
export const portalLinkBody = z.strictObject({
  scope: portalScope.default('manage'),
  sessionSeconds: z
    .number()
    .int()
    .min(SESSION_SECONDS.min)
    .max(SESSION_SECONDS.max)
    .default(SESSION_SECONDS.default)
    .describe(`how long the session the link opens lasts, ${SESSION_SECONDS.min}–${SESSION_SECONDS.max} s`),
});

export const portalLink = z
  .object({
    url: z.string().describe('single use; the token is in the fragment (#token=…), which no server logs'),
    expiresAt: dateTime.describe('the link stops working then if unused (5 minutes)'),
  })
  .meta({ id: 'PortalLink' });

export const portalSession = z
  .object({
    integratorId: uuid,
    scope: portalScope,
    expiresAt: dateTime,
    csrfToken: z.string().describe('send it as X-CSRF-Token with every write'),
  })
  .meta({ id: 'PortalSession' });

export const portalRevoked = z.object({ revoked: z.number().int() }).meta({ id: 'PortalRevoked' });
