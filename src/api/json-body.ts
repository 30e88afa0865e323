import { isUtf8 } from 'node:buffer';
import type { FastifyRequest } from 'fastify';
import { scanJson, type JsonProblem } from '../util/json-scan.js';
import { receivedJsonText, type JsonText } from '../domain/json-text.js';
import { badRequest, type HttpError } from './errors.js';

/** Most arrays and objects open at once in a request body; the body's own object counts as level 1. */
export const JSON_DEPTH_LIMIT = 64;

export interface InspectedBody {
  text: string;
  /** The exact text of each top-level member of an object body (the producer's bytes, for `data`). */
  members: ReadonlyMap<string, JsonText>;
  /** The 400 to answer instead of parsing, if any. */
  error?: HttpError;
}

const reasons: Record<JsonProblem['reason'], string> = {
  too_deep: `arrays and objects nested deeper than ${JSON_DEPTH_LIMIT} levels (the limit is ${JSON_DEPTH_LIMIT}, the body itself being level 1)`,
  number_out_of_range: 'a number beyond the range of a 64-bit float (±1.8e308); send it as a string',
  invalid_utf8: 'not valid UTF-8',
};

/** Index of the first U+FFFD that the decoder put in place of invalid bytes (not one the sender encoded). */
function firstSubstitution(bytes: Buffer, text: string): number {
  let offset = 0;
  let from = 0;
  for (let i = text.indexOf('\uFFFD'); i !== -1; i = text.indexOf('\uFFFD', i + 1)) {
    // Up to the first substitution every character is the sender's, so byte offsets are exact.
    offset += Buffer.byteLength(text.slice(from, i));
    from = i;
    if (bytes[offset] !== 0xef || bytes[offset + 1] !== 0xbf || bytes[offset + 2] !== 0xbd) return i;
  }
  return -1;
}

/**
 * Checked before JSON.parse and before any schema: the body is UTF-8, nests at most JSON_DEPTH_LIMIT levels, and
 * holds no number that parsing would turn into Infinity. Each refusal names the JSON path (`body.data.a[0]: …`).
 */
export function inspectJsonBody(bytes: Buffer): InspectedBody {
  const text = bytes.toString('utf8');
  const badCharAt = isUtf8(bytes) ? -1 : firstSubstitution(bytes, text);
  const scan = scanJson(text, { maxDepth: JSON_DEPTH_LIMIT, badCharAt });
  const members = new Map([...scan.members].map(([k, v]) => [k, receivedJsonText(v)]));
  if (!scan.problem && badCharAt === -1) return { text, members };
  // Every character but whitespace and punctuation is in a token, so the scan reports a substitution with its path.
  const { path, reason }: JsonProblem = scan.problem ?? { path: '', reason: 'invalid_utf8' };
  return { text, members, error: badRequest(`body${path}: ${reasons[reason]}`) };
}

/** The exact text of a top-level member of the request's JSON body, undefined when the body has no such member. */
export function bodyMemberText(request: FastifyRequest, name: string): JsonText | undefined {
  // Set by the raw-body parser for every JSON body; a route reading it without one is a bug, not bad input.
  if (!request.bodyMembers) throw new Error('no JSON body members on this request');
  return request.bodyMembers.get(name);
}
