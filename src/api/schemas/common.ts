import { z } from 'zod';

/** A uuid in any case, normalised to lowercase (the stored form), so `ABC…` and `abc…` name the same thing everywhere. */
export const uuid = z.uuid().toLowerCase();

/** Fastify gives a repeated query parameter as an array; say so instead of "expected string, received array". */
export const givenOnce = {
  error: (issue: { input?: unknown }) => (Array.isArray(issue.input) ? 'must be given at most once' : undefined),
};

/** An ISO-8601 date-time with an offset or Z, e.g. 2026-01-31T12:00:00.000Z. */
export const dateTime = z.iso.datetime({ offset: true });

/**
 * `limit`: an integer 1–250 written in plain decimal digits (so "1.5", "1e2", "-1", "abc" and "" are 400), default 100.
 */
export const limitParam = z
  .string(givenOnce)
  .regex(/^[0-9]+$/, 'must be an integer from 1 to 250')
  .transform(Number)
  .pipe(z.number().int().min(1, 'must be an integer from 1 to 250').max(250, 'must be an integer from 1 to 250'))
  .default(100);

export const cursorParam = z.string().min(1).max(512);

/** Page envelope fields used by every listing besides its items. */
export const nextCursor = z.string().nullable().describe('opaque cursor of the next page; null on the last page');
