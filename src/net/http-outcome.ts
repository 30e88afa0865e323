import type { IncomingHttpHeaders } from 'node:http';
import { RESPONSE_HEADER_MAX_BYTES } from '../domain/attempt-bounds.js';
import { BlockedDestinationError } from './pinned-connector.js';

/** The whole post (DNS, connect, headers, bounded body) outlived its budget. */
export class DeadlineError extends Error {
  override readonly name = 'DeadlineError';
  readonly code = 'HERALD_DEADLINE';
  constructor() {
    super('the request took longer than its deadline');
  }
}

const TIMEOUT_CODES = new Set([
  'HERALD_DEADLINE',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'ETIMEDOUT',
]);
/** Our own bugs (a bad header name or value), not the receiver's: these still throw. */
const CALLER_ERRORS = new Set(['UND_ERR_INVALID_ARG', 'UND_ERR_NOT_SUPPORTED']);
const MAX_ERROR_LENGTH = 300;

function describe(err: unknown): { code: string | undefined; text: string } {
  if (!(err instanceof Error)) return { code: undefined, text: String(err) };
  const code = (err as NodeJS.ErrnoException).code;
  // A TLS failure often hides in `cause`; one level is enough to name it.
  const cause = err.cause instanceof Error ? `: ${err.cause.message}` : '';
  const text = `${code ?? err.name}: ${err.message}${cause}`;
  return { code, text: text.length > MAX_ERROR_LENGTH ? `${text.slice(0, MAX_ERROR_LENGTH - 1)}…` : text };
}

/** Maps a failed post to its outcome; only programming errors are rethrown. */
export function classifyError(err: unknown): { outcome: 'timeout' | 'connection_error' | 'blocked'; error: string } {
  const { code, text } = describe(err);
  if (code !== undefined && CALLER_ERRORS.has(code)) throw err;
  if (err instanceof BlockedDestinationError) return { outcome: 'blocked', error: err.message };
  const timedOut =
    (code !== undefined && TIMEOUT_CODES.has(code)) || (err instanceof Error && err.name === 'TimeoutError');
  return { outcome: timedOut ? 'timeout' : 'connection_error', error: text };
}

/** Headers worth keeping in an attempt record; the rest may be large or carry the receiver's secrets. */
const SUMMARY_HEADERS = ['content-type', 'content-length', 'location', 'retry-after'] as const;

export function summarizeHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  const summary: Record<string, string> = {};
  for (const name of SUMMARY_HEADERS) {
    const value = headers[name];
    if (value !== undefined)
      summary[name] = utf8Prefix(Array.isArray(value) ? value.join(', ') : value, RESPONSE_HEADER_MAX_BYTES);
  }
  return summary;
}

/**
 * At most `max` bytes of `text` once encoded as UTF-8, cut before a character, never inside one (a body decoded with
 * replacement characters can encode longer than the bytes read).
 */
export function utf8Prefix(text: string, max: number): string {
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length <= max) return text;
  let end = max;
  while (end > 0 && (bytes[end]! & 0xc0) === 0x80) end -= 1; // a continuation byte: back to its character's start
  return bytes.subarray(0, end).toString('utf8');
}

/**
 * Reads at most `max` bytes (plus the chunk that crossed it) and then destroys the stream, which aborts the
 * response and closes its connection: a huge or endless body is never buffered. A read error ends the summary.
 */
export async function readBounded(
  body: AsyncIterable<Buffer> & { destroy(): unknown },
  max: number,
): Promise<{ body: string; truncated: boolean; error: string | null }> {
  const chunks: Buffer[] = [];
  let size = 0;
  let error: string | null = null;
  try {
    // Leaving the loop early runs the iterator's return(), which destroys the stream.
    for await (const chunk of body) {
      chunks.push(chunk);
      size += chunk.length;
      if (size > max) break;
    }
  } catch (err) {
    error = `response body: ${describe(err).text}`;
    body.destroy();
  }
  const bytes = Buffer.concat(chunks, size);
  return { body: utf8Prefix(bytes.toString('utf8'), max), truncated: size > max || error !== null, error };
}
