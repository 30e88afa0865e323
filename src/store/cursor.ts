import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { Filter } from 'mongodb';

/**
 * A keyset position: the last item of a page, ordered by (createdAt desc, _id desc); `page` is where a listing
 * kept in page documents continues (src/store/pages), absent for the others.
 */
export interface Position {
  readonly createdAt: Date;
  readonly id: string;
  readonly page?: number;
}

/** Newest first, ties broken by id: every listing uses this order. */
export const newestFirst = { createdAt: -1, _id: -1 } as const;

/** Items strictly after `position` in newest-first order. */
export function after<T extends { createdAt: Date; _id: string }>(position: Position): Filter<T> {
  return {
    $or: [{ createdAt: { $lt: position.createdAt } }, { createdAt: position.createdAt, _id: { $lt: position.id } }],
  } as Filter<T>;
}

/**
 * A page out of `limit + 1` rows read after a position: the extra row only tells that a next page exists, which
 * then starts after the page's last item (null on the last page). Rows whose read stopped for its scan budget
 * (src/store/listing/scan-budget.ts) carry `resumeAt`: the page is what was found, and the next starts there.
 */
export function keysetPage<T extends { createdAt: Date; _id: string; page?: number }>(
  rows: readonly T[] & { readonly resumeAt?: Position },
  limit: number,
): { page: T[]; next: Position | null } {
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  if (rows.length <= limit || !last) return { page, next: rows.resumeAt ?? null };
  const at = { createdAt: last.createdAt, id: last._id };
  return { page, next: last.page === undefined ? at : { ...at, page: last.page } };
}

/** A canonical digest of the filters a cursor was made with (order-independent, undefined values dropped). */
export function filterDigest(filters: Record<string, unknown>): string {
  const canonical = Object.keys(filters)
    .filter((k) => filters[k] !== undefined)
    .sort()
    .map((k) => [k, filters[k] instanceof Date ? (filters[k] as Date).toISOString() : filters[k]]);
  return createHash('sha256').update(JSON.stringify(canonical)).digest('base64url').slice(0, 16);
}

/** A cursor this server cannot continue from; the API answers it 400 `invalid_cursor` with the message. */
export class CursorError extends Error {
  override readonly name = 'CursorError';
}

/**
 * Opaque, tamper-evident page cursors: base64url(JSON [scope, createdAtMs, id, filterDigest, page?]) + '.' + HMAC.
 * A cursor only works for the listing (`scope`) and the exact filters it was issued for.
 */
export interface CursorCodec {
  encode(scope: string, position: Position, filters: Record<string, unknown>): string;
  /** The position, or a CursorError naming the problem. */
  decode(scope: string, cursor: string, filters: Record<string, unknown>): Position;
}

export function createCursorCodec(secret: Buffer | string): CursorCodec {
  const key = typeof secret === 'string' ? Buffer.from(secret, 'utf8') : secret;
  const mac = (payload: string): Buffer => createHmac('sha256', key).update(payload).digest().subarray(0, 16);
  const invalid = (why: string) => new CursorError(`cursor: ${why}`);

  return {
    encode(scope, position, filters) {
      const fields = [scope, position.createdAt.getTime(), position.id, filterDigest(filters)];
      if (position.page !== undefined) fields.push(position.page);
      const payload = Buffer.from(JSON.stringify(fields)).toString('base64url');
      return `${payload}.${mac(payload).toString('base64url')}`;
    },
    decode(scope, cursor, filters) {
      const [payload, signature, extra] = cursor.split('.');
      if (!payload || !signature || extra !== undefined || !/^[A-Za-z0-9_-]+$/.test(payload + signature)) {
        throw invalid('malformed');
      }
      const given = Buffer.from(signature, 'base64url');
      const expected = mac(payload);
      if (given.length !== expected.length || !timingSafeEqual(given, expected))
        throw invalid('not issued by this server');
      let parsed: unknown;
      try {
        parsed = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
      } catch {
        throw invalid('malformed');
      }
      if (!Array.isArray(parsed) || parsed.length < 4 || parsed.length > 5) throw invalid('malformed');
      const [cursorScope, ms, id, digest, page] = parsed as unknown[];
      if (cursorScope !== scope) throw invalid('issued for another listing');
      if (typeof ms !== 'number' || !Number.isSafeInteger(ms) || typeof id !== 'string') throw invalid('malformed');
      if (page !== undefined && (typeof page !== 'number' || !Number.isSafeInteger(page) || page < 0))
        throw invalid('malformed');
      if (digest !== filterDigest(filters)) throw invalid('the filters changed since this cursor was issued');
      return page === undefined ? { createdAt: new Date(ms), id } : { createdAt: new Date(ms), id, page };
    },
  };
}
