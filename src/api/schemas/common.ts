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
 * A query bound on a stored instant, as the millisecond that selects exactly the same instants. Stored instants are
 * whole milliseconds and `new Date()` drops the digits after them, so `createdBefore=…07.0005Z` would become
 * `< 07.000` and leave out the events of 07.000. An upper bound (`< t`) or an inclusive lower one (`>= t`) with a
 * finer fraction moves up to the next millisecond (`ceil`); an exclusive lower bound (`> t`) keeps its millisecond.
 */
const toInstant =
  (rounding: 'floor' | 'ceil') =>
  (s: string): Date => {
    const fraction = /\.(\d+)/.exec(s);
    if (!fraction) return new Date(s);
    const digits = fraction[1] ?? '';
    const date = new Date(s.replace(fraction[0], `.${digits.slice(0, 3).padEnd(3, '0')}`));
    return rounding === 'ceil' && /[1-9]/.test(digits.slice(3)) ? new Date(date.getTime() + 1) : date;
  };
export const instantBound = (rounding: 'floor' | 'ceil') =>
  z.iso.datetime({ offset: true, ...givenOnce }).transform(toInstant(rounding));
/** A listing's exclusive bounds on createdAt (the events and the deliveries listings). */
export const createdRange = {
  createdAfter: instantBound('floor')
    .optional()
    .describe('exclusive lower bound on createdAt; any precision, compared exactly'),
  createdBefore: instantBound('ceil')
    .optional()
    .describe('exclusive upper bound on createdAt; any precision, compared exactly'),
};
/** The same bound in a JSON body (a campaign's window). */
export const bodyInstantBound = (rounding: 'floor' | 'ceil') => dateTime.transform(toInstant(rounding));

/**
 * A query parameter that is an integer min–max written in plain decimal digits (so "1.5", "1e2", "-1", "abc" and ""
 * are 400), `fallback` when absent. The document shows what a client sends: an integer min–max (the `pattern` of the
 * string form is dropped there).
 */
export const integerParam = (min: number, max: number, fallback: number) => {
  const message = `must be an integer from ${min} to ${max}`;
  return z
    .string(givenOnce)
    .regex(/^[0-9]+$/, message)
    .transform(Number)
    .pipe(z.number().int().min(min, message).max(max, message))
    .default(fallback)
    .meta({ type: 'integer', minimum: min, maximum: max, default: fallback });
};

/** `limit`: an integer 1–250, default 100. */
export const limitParam = integerParam(1, 250, 100);

/**
 * The form of every cursor the API issues (src/store/cursor.ts): base64url of a JSON array, a dot, and a 16-byte MAC
 * in base64url (22 characters). Stated in the document so a client or a generator knows that `0` is no cursor. The
 * form does not make a string a cursor: the MAC is checked, so only a value the API returned is accepted, and the
 * document says so (a generator must not make one up: `npm run fuzz` leaves generated cursors out of its valid cases).
 */
export const CURSOR_PATTERN = /^WyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{22}$/;

/** An opaque page cursor: only a `nextCursor` the API issued for the same listing and filters is accepted. */
export const cursorParam = z
  .string(givenOnce)
  .min(1)
  .max(512)
  .meta({
    pattern: CURSOR_PATTERN.source,
    description:
      'opaque: the nextCursor returned by the previous page of this listing, sent back unchanged with the same ' +
      'filters. The server seals it (base64url, a dot, a 22-character MAC), so no other value is a cursor: one it ' +
      'did not issue, altered, or issued for another listing or other filters is 400 invalid_cursor',
  });

type Json = string | number | boolean | null | Json[] | { [key: string]: Json };

/**
 * Any JSON value, as one named recursive schema: `z.json()` would put its recursion under an anonymous `$defs`
 * entry that the OpenAPI document cannot reference (`#/components/schemas/__shared#/$defs/schema0`).
 */
export const jsonValue: z.ZodType<Json> = z
  .lazy(() =>
    z.union([z.string(), z.number(), z.boolean(), z.null(), z.array(jsonValue), z.record(z.string(), jsonValue)]),
  )
  .meta({ id: 'JsonValue', description: 'any JSON value' });

/** Page envelope fields used by every listing besides its items. */
export const nextCursor = z.string().nullable().describe('opaque cursor of the next page; null on the last page');

/** The cursor of a listing that reads under a scan bound (src/store/listing/scan-budget.ts). */
export const boundedNextCursor = z
  .string()
  .nullable()
  .describe(
    'opaque cursor of the next page; null on the last page, and only there. A page whose filters match few rows of a ' +
      'long history may hold fewer than limit rows, or none, with a cursor: each page reads a bounded number of rows ' +
      'in a bounded time (HERALD_LISTING_SCAN_ROWS, HERALD_LISTING_TIME_MS), so follow nextCursor until it is null',
  );
